"""Training: validated settings (config), trajectory-wise GRPO over the one episode runner (grpo), the SFT baseline
(sft), task sampling (curriculum) and the tiny model the tests and the demo train (tiny_model)."""
