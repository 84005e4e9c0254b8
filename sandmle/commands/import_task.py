"""`sandmle import`: turn an MLE-bench, MLE-Dojo or SandMLE competition into a task bundle (marked imported)."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("import", help="import a prepared MLE-bench, MLE-Dojo or SandMLE competition")
    parser.add_argument("source", type=Path, metavar="SRC",
                        help="mlebench: a competitions/<id> folder; mledojo: a prepared competition; sandmle: a "
                             "task's <id>/ folder in SandMLE's layout (holding prepared/public/), or that folder")
    parser.add_argument("--format", required=True, choices=("mlebench", "mledojo", "sandmle"))
    parser.add_argument("--out", required=True, type=Path, help="folder the bundle is written into (as OUT/<id>)")
    parser.add_argument("--data", type=Path, help="mlebench: its data directory (default: SRC/../../data)")
    parser.add_argument("--metric", help="the metric by name, where the source does not say it (mledojo, sandmle)")
    return parser


def run(args) -> int:
    from sandmle.formats import mlebench, mledojo, sandmle_layout

    if args.format == "mlebench":
        bundle = mlebench.import_competition(args.source, args.out, data_dir=args.data)
    elif args.format == "mledojo":
        bundle = mledojo.import_competition(args.source, args.out, metric=args.metric)
    else:
        bundle = sandmle_layout.import_folder(args.source, args.out, metric=args.metric)
    print(bundle)
    return 0
