"""The tests' tiny Qwen3: a thin name for sandmle.rl.tiny_model, which the demo's smoke run uses too."""

from __future__ import annotations

from pathlib import Path

from sandmle.rl.tiny_model import CHAT_TEMPLATE, CORPUS, build_tiny_checkpoint

__all__ = ["CHAT_TEMPLATE", "CORPUS", "build_tiny_qwen"]


def build_tiny_qwen(directory: Path, *, seed: int = 0, head_dim: int = 16) -> Path:
    """Saves a 2-layer, hidden-64 Qwen3 and its tokenizer with save_pretrained(); returns the directory."""
    return build_tiny_checkpoint(directory, seed=seed, head_dim=head_dim)
