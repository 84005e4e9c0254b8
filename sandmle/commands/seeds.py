"""`sandmle seeds`: the bundled seeds, one JSON line each."""

import json


def add_parser(subparsers):
    return subparsers.add_parser("seeds", help="list the bundled seeds")


def run(args) -> int:
    from sandmle.seeds.dna import extract_dna
    from sandmle.seeds.load import bundled_seed_names, load_bundled_seed

    for name in bundled_seed_names():
        seed = load_bundled_seed(name)
        dna = extract_dna(seed)
        print(json.dumps({"name": name, "modality": seed.modality, "task_type": seed.task_type, "metric": seed.metric,
                          "rows": dna.n_rows, "features": dna.n_features}))
    return 0
