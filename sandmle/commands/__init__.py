"""Subcommands of the `sandmle` CLI: each module defines `add_parser(subparsers)` and `run(args) -> int`."""
