"""`sandmle sandbox-check`: run one trivial step through the real sandbox; exit 1 with the reason where none can run."""

from __future__ import annotations

import argparse
import sys


def add_parser(subparsers) -> argparse.ArgumentParser:
    return subparsers.add_parser("sandbox-check", help="check that agent code can run isolated here (bubblewrap)")


def run(args: argparse.Namespace) -> int:
    from sandmle.sandbox import SandboxUnavailable
    from sandmle.sandbox.self_test import sandbox_self_test

    try:
        result = sandbox_self_test()
    except SandboxUnavailable as error:
        print(f"sandmle sandbox-check: {error}", file=sys.stderr)
        return 1
    how = f"isolated by {result['bwrap']}" if result["isolated"] else "NOT isolated (plain subprocess mode)"
    print(f"sandbox ok: a step ran in {result['wall_s'] * 1000:.0f} ms, {how}")
    return 0
