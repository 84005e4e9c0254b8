"""`sandmle synth`: synthesize task bundles from a seed, one JSON summary line per task."""

import json
from pathlib import Path

from sandmle.commands.seed_args import add_seed_arguments, seed_from_args
from sandmle.commands.llm_args import chat_client_from
from sandmle.errors import UsageError

RNG_MAX = 2**32 - 1  # the range the studio's form and API accept; any of them synthesizes (stage seeds are hashed)


def add_parser(subparsers):
    parser = subparsers.add_parser("synth", help="synthesize tasks from a seed")
    parser.add_argument("--seed", dest="seed", help="a bundled seed name")
    add_seed_arguments(parser)
    parser.add_argument("--count", type=int, default=1)
    parser.add_argument("--rng", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--llm-url", help="base URL of an OpenAI-compatible endpoint (e.g. http://host:8000/v1) for the "
                                          "LLM-backed domain and rule stages")
    parser.add_argument("--llm-model", help="the model name to ask at --llm-url")
    parser.add_argument("--llm-key-env", default="OPENAI_API_KEY",
                        help="the environment variable holding the endpoint's API key (default: OPENAI_API_KEY)")
    parser.add_argument("--noise-scale", type=float, default=1.0,
                        help="multiply each drawn noise intensity (0: clean tasks, up to 2; default 1)")
    parser.add_argument("--min-headroom", type=float, help="target: keep only tasks with at least this headroom (0-1)")
    parser.add_argument("--difficulty", help="target: keep only tasks of this difficulty (easy, medium, hard)")
    return parser


def run(args) -> int:
    from sandmle.synth import synthesize

    if not 1 <= args.count <= 1000:
        raise UsageError("--count must be between 1 and 1000")
    if not 0 <= args.rng <= RNG_MAX:
        raise UsageError(f"--rng must be between 0 and {RNG_MAX}")
    from sandmle.synth.noise import NOISE_SCALE_MAX
    from sandmle.synth.targets import check_targets

    if not 0 <= args.noise_scale <= NOISE_SCALE_MAX:
        raise UsageError(f"--noise-scale must be between 0 and {NOISE_SCALE_MAX:g}")
    try:
        check_targets(min_headroom=args.min_headroom, difficulty=args.difficulty)
    except ValueError as error:
        raise UsageError(str(error)) from None
    llm = chat_client_from(args.llm_url, args.llm_model, key_env=args.llm_key_env, flag="llm")
    args.out.mkdir(parents=True, exist_ok=True)
    for result in synthesize(seed_from_args(args), count=args.count, rng=args.rng, out_dir=args.out, llm=llm,
                             noise_scale=args.noise_scale, min_headroom=args.min_headroom,
                             difficulty=args.difficulty):
        print(json.dumps(result.summary(), sort_keys=True), flush=True)
    return 0
