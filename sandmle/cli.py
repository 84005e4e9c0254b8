"""The `sandmle` command: one subcommand per module in `sandmle.commands`."""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from sandmle import commands
from sandmle.errors import UsageError


class _OneLineErrorParser(argparse.ArgumentParser):
    """Unusable arguments give one line on stderr and exit 2, as every other usage error of the command does."""

    def error(self, message: str) -> None:
        self.exit(2, f"{self.prog}: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _OneLineErrorParser(prog="sandmle", description="SandMLE engine command line")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for module_info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"sandmle.commands.{module_info.name}")
        if not hasattr(module, "add_parser"):  # a helper shared by commands, not a command
            continue
        sub = module.add_parser(subparsers)
        sub.set_defaults(handler=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = int(args.handler(args) or 0)
        sys.stdout.flush()  # inside the try: a reader that has gone (`| head`) shows here, not at interpreter exit
        return status
    except BrokenPipeError:
        # As Python's signal docs advise: point stdout at devnull so the exit-time flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (UsageError, FileNotFoundError) as error:
        print(f"sandmle {args.command}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
