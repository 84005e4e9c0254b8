"""`python -m sandmle`: the same command line as `sandmle`."""

import sys

from sandmle.cli import main

sys.exit(main())
