"""`sandmle synth`: synthesize task bundles from a seed, one JSON summary line per task."""

import json
from pathlib import Path

from sandmle.commands.seed_args import add_seed_arguments, seed_from_args
from sandmle.errors import UsageError


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
    return parser


def llm_client_from_args(args):
    """The chat client of --llm-url/--llm-model, or None for the procedural stages."""
    if not (args.llm_url or args.llm_model):
        return None
    if not (args.llm_url and args.llm_model):
        raise UsageError("--llm-url and --llm-model go together")
    if not args.llm_url.startswith(("http://", "https://")):
        raise UsageError(f"--llm-url must be an http(s) URL, got {args.llm_url!r}")
    from sandmle.llm import ChatClient

    return ChatClient(args.llm_url, args.llm_model, api_key_env=args.llm_key_env)


def run(args) -> int:
    from sandmle.synth import synthesize

    if not 1 <= args.count <= 1000:
        raise UsageError("--count must be between 1 and 1000")
    llm = llm_client_from_args(args)
    args.out.mkdir(parents=True, exist_ok=True)
    for result in synthesize(seed_from_args(args), count=args.count, rng=args.rng, out_dir=args.out, llm=llm):
        print(json.dumps(result.summary(), sort_keys=True), flush=True)
    return 0
