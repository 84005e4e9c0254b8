"""`sandmle exec TASK_DIR FILE.py`: run one Python file as a sandboxed step against a task's public files."""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from sandmle.errors import UsageError


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("exec", help="run a Python file in the sandbox with TASK_DIR/public at /public")
    parser.add_argument("task_dir", type=Path)
    parser.add_argument("file", type=Path)
    parser.add_argument("--workdir", type=Path, default=None, help="scratch dir (default: a fresh temp dir)")
    parser.add_argument("--timeout", type=float, default=60.0, help="wall-clock limit in seconds")
    parser.add_argument("--memory", type=int, default=2048, help="memory limit in MB")
    return parser


def run(args: argparse.Namespace) -> int:
    from sandmle.sandbox import Limits, Sandbox, SandboxUnavailable

    public_dir = args.task_dir / "public"
    if not public_dir.is_dir():
        raise FileNotFoundError(f"{args.task_dir} has no public/ directory")
    if not args.file.is_file():
        raise FileNotFoundError(f"no such file: {args.file}")
    if args.timeout <= 0 or args.memory < 64:
        raise UsageError("--timeout must be positive and --memory at least 64 (MB)")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="sandmle-exec-"))
    try:
        sandbox = Sandbox(public_dir=public_dir, workdir=workdir,
                          limits=Limits(timeout_s=args.timeout, memory_mb=args.memory))
    except SandboxUnavailable as error:
        raise UsageError(str(error)) from error
    result = sandbox.run_python(args.file.read_text())
    print(json.dumps({"workdir": str(workdir), **result.to_dict()}, indent=2))
    return 0
