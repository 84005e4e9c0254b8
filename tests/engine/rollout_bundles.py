"""Hand-made task bundles following the bundle contract, for the agent and rollout tests."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

WORDS = ["great", "poor", "fast", "slow", "cheap", "costly", "bright", "dull", "quiet", "loud"]


def _frame(kind: str, rows: int, seed: int) -> tuple[pd.DataFrame, str]:
    rng = np.random.default_rng(seed)
    x1, x2 = rng.normal(size=rows), rng.normal(size=rows)
    colour = rng.choice(["red", "green", "blue"], size=rows)
    frame = pd.DataFrame({"id": np.arange(rows), "x1": x1, "x2": x2, "colour": colour})
    frame.loc[rng.random(rows) < 0.1, "x2"] = np.nan
    signal = 1.5 * x1 + (colour == "red") - 0.5 * np.nan_to_num(frame["x2"].to_numpy())
    if kind == "binary":
        frame["note"] = [" ".join(rng.choice(WORDS, size=6)) + (" great value" if s > 0 else " poor value") for s in signal]
        frame["label"] = np.where(signal + rng.normal(scale=0.5, size=rows) > 0, "yes", "no")
        return frame, "label"
    if kind == "multiclass":
        frame["species"] = np.digitize(signal + rng.normal(scale=0.3, size=rows), [-0.7, 0.7]).astype(int)
        return frame, "species"
    frame["price"] = 3.0 * signal + rng.normal(scale=0.5, size=rows)
    return frame, "price"


SETTINGS = {
    "binary": ("roc_auc", False, "binary", {"median": 0.7, "bronze": 0.8, "silver": 0.85, "gold": 0.9}),
    "multiclass": ("log_loss", True, "multiclass", {"median": 0.9, "bronze": 0.6, "silver": 0.5, "gold": 0.4}),
    "regression": ("rmse", True, "regression", {"median": 3.0, "bronze": 1.5, "silver": 1.0, "gold": 0.8}),
}


def make_bundle(root: Path, *, kind: str = "binary", rows: int = 160, seed: int = 0) -> Path:
    """Writes a task bundle of the given kind under root/<kind>-<seed> and returns its directory."""
    metric, lower, task_type, milestones = SETTINGS[kind]
    task_dir = root / f"{kind}-{seed}"
    (task_dir / "public").mkdir(parents=True)
    (task_dir / "private").mkdir()
    frame, target = _frame(kind, rows, seed)
    split = int(rows * 0.7)
    train, test = frame.iloc[:split], frame.iloc[split:].reset_index(drop=True)
    train.to_csv(task_dir / "public" / "train.csv", index=False)
    test.drop(columns=[target]).to_csv(task_dir / "public" / "test.csv", index=False)
    labels = sorted(frame[target].unique().tolist()) if task_type != "regression" else None
    if metric == "log_loss":
        columns = ["id"] + [str(label) for label in labels]
        sample = pd.DataFrame({"id": test["id"], **{str(label): 1.0 / len(labels) for label in labels}})
    elif metric == "roc_auc":
        columns = ["id", target]
        sample = pd.DataFrame({"id": test["id"], target: 0.5})
    else:
        columns = ["id", target]
        sample = pd.DataFrame({"id": test["id"], target: 0.0})
    sample.to_csv(task_dir / "public" / "sample_submission.csv", index=False)
    answers = test[["id", target]].copy()
    answers["leaderboard"] = np.where(np.arange(len(test)) % 10 < 3, "public", "private")
    answers.to_csv(task_dir / "private" / "answers.csv", index=False)
    (task_dir / "public" / "description.md").write_text(
        f"# Predict {target}\n\nPredict `{target}` for each row of test.csv. Submissions are scored by {metric} "
        f"({'lower' if lower else 'higher'} is better). Columns of the submission: {', '.join(columns)}.\n")
    (task_dir / "private" / "rule.json").write_text(json.dumps({"description": "a linear signal of x1, x2 and colour"}))
    grading = {"metric": metric, "is_lower_better": lower, "task_type": task_type, "id_column": "id",
               "target_column": target, "labels": labels, "submission_columns": columns, "milestones": milestones,
               "ladder": {"baseline": milestones["median"], "linear": milestones["bronze"],
                          "ensemble": milestones["silver"], "oracle": milestones["gold"]}}
    (task_dir / "private" / "grading.json").write_text(json.dumps(grading))
    (task_dir / "task.json").write_text(json.dumps({"task_id": task_dir.name, "generator_version": "handmade",
                                                    "spec": {}, "bundle_sha256": "", "files": {}}))
    return task_dir


COPY_SAMPLE = "import shutil\nshutil.copyfile('/public/sample_submission.csv', '/workdir/submission.csv')\nprint('copied')\n"


class ScriptedPolicy:
    """A policy whose replies are fixed by the test: a list served in order, or a function of (messages, sampling)."""

    def __init__(self, replies=None, *, reply_fn=None, name: str = "scripted") -> None:
        self.replies = list(replies or [])
        self.reply_fn = reply_fn
        self.name = name
        self.calls: list[tuple[list[dict], object]] = []

    def generate(self, messages, *, sampling):
        from sandmle.agents import PolicyReply

        self.calls.append(([dict(message) for message in messages], sampling))
        if self.replies:
            return PolicyReply(text=self.replies.pop(0))
        if self.reply_fn is not None:
            return PolicyReply(text=self.reply_fn(messages, sampling))
        raise RuntimeError("scripted policy has no reply left")


def constant_submission_code(value: float, *, note: str = "") -> str:
    """Agent code that writes the sample submission with every prediction set to `value` (no pandas: fast steps)."""
    return (
        "import csv\n"
        "rows = list(csv.reader(open('/public/sample_submission.csv')))\n"
        "with open('/workdir/submission.csv', 'w', newline='') as out:\n"
        "    writer = csv.writer(out)\n"
        "    writer.writerow(rows[0])\n"
        "    for row in rows[1:]:\n"
        f"        writer.writerow([row[0]] + [{value!r}] * (len(row) - 1))\n"
        f"print('wrote the constant {value} {note}')\n"
    )


HEADER_ONLY_SUBMISSION = "open('/workdir/submission.csv', 'w').write('id,label\\n')\nprint('wrote a header')\n"
FAILING_CODE = "raise ValueError('the column is not there')\n"
NEVER_ENDING_CODE = "while True:\n    pass\n"


def reply_with_code(plan: str, code: str) -> str:
    """An AIDE/AIRA reply: a plan and one python code block."""
    return f"{plan}\n\n```python\n{code}```"


def review_json(*, is_bug: bool, metric: float | None, lower_is_better: bool | None = None, summary: str = "") -> str:
    import json

    verdict = {"is_bug": is_bug, "metric": metric, "summary": summary}
    if lower_is_better is not None:
        verdict["lower_is_better"] = lower_is_better
    return json.dumps(verdict)


def batched_rollout_on_two_tasks(tmp_path: Path, policy, *, seed: int) -> tuple[list, dict]:
    """A ReAct rollout batch over two hand-made binary tasks x 2 samples, all four episodes at once, through the real
    sandbox; checks what every generation path must give (no failed episode, fewer calls than replies, each sequence's
    mask picking exactly the sampled ids) and returns (trajectories, summary)."""
    from sandmle.agents import SamplingParams
    from sandmle.episodes.runner import EpisodeConfig, run_batch, summarize
    from sandmle.generation import GenerationStats

    tasks = [make_bundle(tmp_path / "a", kind="binary"), make_bundle(tmp_path / "b", kind="binary", seed=1)]
    stats = GenerationStats()
    config = EpisodeConfig(max_turns=2, seed=seed, sampling=SamplingParams(max_tokens=12))
    trajectories = run_batch(tasks, scaffold="react", policy_spec=policy, samples=2, concurrency=4, config=config,
                             stats=stats)
    summary = summarize(trajectories, stats=stats)
    assert len(trajectories) == 4 and all(t.error is None for t in trajectories), [t.error for t in trajectories]
    replies = sum(len(t.tokens) for t in trajectories)
    assert summary["generate_calls"] < replies and summary["mean_batch_size"] > 1.0
    for trajectory in trajectories:
        sequence = trajectory.sequence
        assert [t for t, bit in zip(sequence["ids"], sequence["mask"]) if bit] == [
            token for record in trajectory.tokens for token in record["completion_ids"]]
    return trajectories, summary
