"""Shared by the commands that talk to an OpenAI-compatible endpoint: a URL and a model flag make one chat client."""

from sandmle.errors import UsageError


def chat_client_from(url: str | None, model: str | None, *, key_env: str, flag: str):
    """The client of --<flag>-url/--<flag>-model, or None when neither is given."""
    if not (url or model):
        return None
    if not (url and model):
        raise UsageError(f"--{flag}-url and --{flag}-model go together")
    if not url.startswith(("http://", "https://")):
        raise UsageError(f"--{flag}-url must be an http(s) URL, got {url!r}")
    from sandmle.llm.client import ChatClient

    return ChatClient(url, model, api_key_env=key_env)
