"""A tiny random Qwen3 with a locally trained byte-level BPE tokenizer and a chat template: for tests and the demo's smoke run."""

from __future__ import annotations

from pathlib import Path

# A Qwen-style chat template: the markers are single special tokens, so prompt ids are exact. The generation markers
# (which render nothing) tell TRL's SFTTrainer which tokens are the assistant's, end-of-turn token included.
CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['role'] == 'assistant' %}{% generation %}{{ message['content'] }}<|im_end|>{% endgeneration %}"
    "{% else %}{{ message['content'] }}<|im_end|>{% endif %}\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

CORPUS = [
    "<think>Read the data first.</think> <python>import pandas as pd\nprint(pd.read_csv('/public/train.csv').head())</python>",
    "<answer>submission.csv</answer> <validate/> <score/>",
    "def fit(model, X, y):\n    return model.fit(X, y)\n",
    "The quick brown fox jumps over the lazy dog. Train a model, write submission.csv, check the score.",
    "import numpy as np\nfrom sklearn.linear_model import LogisticRegression\nprint(np.mean([1, 2, 3]))\n",
]


VLLM_CPU_HEAD_DIM = 64  # vLLM's CPU attention has no kernel below head_dim 64


def build_tiny_checkpoint(path: Path, *, seed: int = 0, reply_menu: list[str] | None = None,
                          head_dim: int = 16) -> Path:
    """Saves a 2-layer, hidden-64 Qwen3 (random weights) and its tokenizer with save_pretrained(); returns the path.

    `head_dim` 64 or more gives a checkpoint vLLM's CPU build can serve (16 keeps the plain tests' model smallest).

    The tokenizer is trained here on a few lines of agent-like text, so nothing is downloaded; the model is a real
    architecture, so the same checkpoint loads in `hf:PATH`, TRL's trainers and (on a GPU) vLLM. With `reply_menu`
    (see sandmle.agents.policies.menu) its config carries complete replies the model chooses among, so a smoke run
    executes code, gets grades and learns.
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM

    directory = Path(path)
    directory.mkdir(parents=True, exist_ok=True)
    special = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=special,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    bpe.train_from_iterator(CORPUS * 20, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                        bos_token=None, unk_token=None)
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(str(directory))
    torch.manual_seed(seed)
    config = Qwen3Config(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, head_dim=head_dim, max_position_embeddings=4096,
                         eos_token_id=tokenizer.convert_tokens_to_ids("<|im_end|>"),
                         pad_token_id=tokenizer.convert_tokens_to_ids("<|endoftext|>"), tie_word_embeddings=True)
    if reply_menu is not None:
        config.reply_menu = list(reply_menu)
    Qwen3ForCausalLM(config).save_pretrained(str(directory))
    return directory
