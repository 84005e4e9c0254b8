"""Reading model replies the way every scaffold must: thinking split off first, then the scaffold's own grammar.

Qwen3 served without a reasoning parser puts its `<think>…</think>` in the reply text; with the chat template's
`<think>` already in the prompt a reply may hold only the closing tag, and a reply cut at the token cap may hold
only the opening one. Braces, fences and tags written while thinking are never parsed as the answer.
"""

from __future__ import annotations

import json
import re

THINK_BLOCK = re.compile(r"<think>(.*?)</think>", re.S)
# SandMLE's format reward counts a turn only if the reply opens with a non-empty <think> block (both react dialects).
OPENING_THINK = re.compile(r"\s*<think>(.*?)</think>", re.S)
JSON_FENCE = re.compile(r"```json\s*\n?(.*?)```", re.S)


def split_thinking(text: str) -> tuple[str, str]:
    """(thinking, answer): every closed <think> block, a leading block closed without its opening tag, or an
    unclosed trailing block (the reply was cut while thinking) goes to the thinking."""
    thoughts = []
    if "</think>" in text and ("<think>" not in text or text.index("</think>") < text.index("<think>")):
        head, text = text.split("</think>", 1)
        thoughts.append(head)
    thoughts += THINK_BLOCK.findall(text)
    answer = THINK_BLOCK.sub("", text)
    if "<think>" in answer:
        answer, cut = answer.split("<think>", 1)
        thoughts.append(cut)
    return "\n".join(t.strip() for t in thoughts if t.strip()), answer


def json_object(text: str) -> dict:
    """The JSON object of a reply's answer part: the body of a ```json fence when there is one (as MLE-Dojo reads
    it), else the text from its first `{` to its last `}` (as AIDE's review parser does). ValueError if none."""
    fenced = JSON_FENCE.search(text)
    if fenced:
        text = fenced.group(1)
    text = text.strip()
    if not text:
        raise ValueError("empty reply")
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ValueError("no JSON object in the reply")
    value = json.loads(text[start: end + 1])
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got {type(value).__name__}")
    return value
