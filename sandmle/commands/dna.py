"""`sandmle dna SEED | --csv FILE --target COL`: a seed's task DNA as JSON."""

import json

from sandmle.commands.seed_args import add_seed_arguments, seed_from_args


def add_parser(subparsers):
    parser = subparsers.add_parser("dna", help="print a seed's task DNA")
    parser.add_argument("seed", nargs="?", help="a bundled seed name")
    add_seed_arguments(parser)
    return parser


def run(args) -> int:
    from sandmle.seeds.dna import extract_dna

    print(json.dumps(extract_dna(seed_from_args(args)).to_dict(), indent=2, sort_keys=True))
    return 0
