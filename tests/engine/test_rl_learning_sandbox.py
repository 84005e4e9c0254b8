"""GRPO learns through the real path: a tiny Qwen3 with a reply menu (its one sampled token picks a complete ReAct
reply: a fitted model, the sample submission, a file in the wrong place) plays synthesized tasks through the one
runner, the ReAct scaffold, the warm sandbox and the grader. The probability of the program the grader rewards and
the mean dense reward rise, and fall with the advantage flipped."""

from __future__ import annotations

import json
import os
import statistics

import pytest

from tests.engine.menu_model import PROBED_MENU, build_menu_checkpoint, first_prompt, probe_lines

os.environ.setdefault("OMP_NUM_THREADS", "1")
pytestmark = pytest.mark.torch

STEPS = 5
MODEL_REPLY = 0  # the menu's fitted model: a medal where the others get 0.3 (valid) and 0.1 (invalid)


@pytest.fixture(scope="module")
def runs(tmp_path_factory, iris_results):
    """The same seeded run twice, the second with every advantage negated (TRL sees -reward)."""
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from sandmle.rl.config import load_train_config
    from sandmle.rl.grpo import train_grpo

    root = tmp_path_factory.mktemp("menu-grpo")
    checkpoint = build_menu_checkpoint(root / "checkpoint")
    tasks = [str(result.bundle_dir) for result in iris_results]
    outputs = {}
    for sign in (1.0, -1.0):
        config = load_train_config({"model": str(checkpoint), "tasks": tasks, "output_dir": str(root / f"run{sign}"),
                                    "group_size": 4, "tasks_per_step": 2, "steps": STEPS, "learning_rate": 3e-2,
                                    "max_turns": 1, "save_every": STEPS, "seed": 5, "concurrency": 2})
        result = train_grpo(config, advantage_sign=sign)
        assert result["steps_done"] == STEPS
        lines = [json.loads(line) for line in (config.output_dir / "metrics.jsonl").read_text().splitlines()]
        steps = [[json.loads(record) for record in open(config.output_dir / "trajectories" / name)]
                 for name in sorted(os.listdir(config.output_dir / "trajectories")) if name.startswith("step-")]
        outputs[sign] = {"lines": lines, "steps": steps, "checkpoint": result["checkpoints"][-1]}
    return {"initial": checkpoint, **outputs}


def model_reply_probability(checkpoint, prompt) -> float:
    from sandmle.agents import make_policy

    return make_policy(f"hf:{checkpoint}").reply_probabilities(prompt)[MODEL_REPLY]


def test_real_sandbox_steps_ran_and_graded_each_reply(runs):
    from sandmle.sandbox.limits import SANDBOX_UID

    trajectories = [t for step in runs[1.0]["steps"] for t in step]
    assert len(trajectories) == STEPS * 8
    choices = set()
    for trajectory in trajectories:
        reply, tool = trajectory["turns"][0], trajectory["turns"][1]
        choice = reply["extra"]["usage"]["menu_choice"]
        choices.add(choice)
        assert reply["text"] == PROBED_MENU[choice] and tool["step"]["termination"] == "ok", tool["step"]
        uid, preloaded = probe_lines(tool["step"]["stdout"])
        # The step ran as the sandbox's user in a fork of the warm zygote (scikit-learn already imported).
        assert preloaded and (uid == SANDBOX_UID or os.geteuid() != 0)
        grade, dense = trajectory["grade"], trajectory["rewards"]["dense"]["total"]
        assert grade["valid_submission"] == (choice != 2)
        assert dense == pytest.approx({0: 0.8, 1: 0.3, 2: 0.1}[choice], abs=0.11), (choice, grade)
        # One sampled token per episode; the forced reply is out of the loss like a tool's output.
        assert sum(trajectory["sequence"]["mask"]) == 1
    assert choices == {0, 1, 2}
    assert all(line["tokens"] == 8 and line["sandbox_s"] > 0 for line in runs[1.0]["lines"])
    assert runs[1.0]["lines"][0]["grad_norm"] > 0


def test_reward_and_the_rewarded_program_rise_and_fall_with_the_advantage_flipped(runs, iris_results):
    learned, flipped = runs[1.0]["lines"], runs[-1.0]["lines"]
    assert learned[0]["reward_mean"] == pytest.approx(flipped[0]["reward_mean"])  # only the updates differ
    curve = [line["reward_mean"] for line in learned]
    control = [line["reward_mean"] for line in flipped]
    assert statistics.fmean(curve[-2:]) > curve[0] + 0.15, curve
    assert statistics.fmean(control[-2:]) < curve[0], control
    assert learned[0]["reward_std"] > 0.1  # the groups had spread: GRPO had something to learn from

    prompt = first_prompt(runs[1.0]["steps"][0][0])
    before = model_reply_probability(runs["initial"], prompt)
    after, after_flipped = model_reply_probability(runs[1.0]["checkpoint"], prompt), \
        model_reply_probability(runs[-1.0]["checkpoint"], prompt)
    assert after > before + 0.2 and after_flipped < before - 0.05, (before, after, after_flipped)
