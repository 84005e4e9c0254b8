"""SandMLE engine: seeds, synthesis, sandbox, grading, agents and RL, with no Django import."""

__version__ = "0.1.0"
