"""Shared arguments of the commands that take a seed: a bundled name, or a CSV file with its target."""

from pathlib import Path

from sandmle.errors import UsageError


def add_seed_arguments(parser) -> None:
    parser.add_argument("--csv", type=Path, help="a CSV seed instead of a bundled one")
    parser.add_argument("--target", help="the CSV's target column")
    parser.add_argument("--task-type", choices=["binary", "multiclass", "regression"])
    parser.add_argument("--metric")


def seed_from_args(args):
    from sandmle.seeds.load import SeedError, load_bundled_seed, load_csv_seed

    name = getattr(args, "seed", None)
    try:
        if args.csv:
            if not args.target:
                raise UsageError("--csv needs --target COL")
            if not args.csv.is_file():
                raise UsageError(f"no file {args.csv}")
            return load_csv_seed(args.csv, target=args.target, task_type=args.task_type, metric=args.metric,
                                 name=args.csv.stem.lower().replace(" ", "_"))
        if not name:
            raise UsageError("name a bundled seed or give --csv FILE --target COL")
        return load_bundled_seed(name)
    except SeedError as error:
        raise UsageError(str(error)) from None
