"""Hostile episodes through every scaffold on both sandbox paths: links, FIFOs, directories and hard links planted as
any file the host reads, copies or writes end as invalid or refused files; nothing outside the episode changes or
appears, no answer or host path reaches the trajectory, and the score never beats the agent's own predictions."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from sandmle.episodes.runner import EpisodeConfig, run_batch, run_episode
from sandmle.sandbox import SandboxPool
from tests.engine.rollout_bundles import ScriptedPolicy, constant_submission_code, make_bundle, review_json

OWN_SCORE = 0.5  # roc_auc of the constant predictions the agent writes itself


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(max_zygotes=1, steps_per_zygote=1000, preload=()) as shared:
        yield shared


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    task, other = make_bundle(root, kind="binary", seed=0), make_bundle(root, kind="binary", seed=1)
    outside = root / "outside"
    outside.mkdir()
    (outside / "host.txt").write_text("HOST-FILE-CONTENT\n")
    return root, task, other, outside


# Each attack starts from a clean slate (the agent removes whatever it planted last), so no step waits on a FIFO.
CLEAN = ("import os, shutil\np = '/workdir/submission.csv'\n"
         "shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else (os.unlink(p) if os.path.lexists(p) else None)\n")


def hidden(path: Path | str) -> str:
    """The path as the agent's code spells it: hex, so a host path that reaches an observation is the host's doing."""
    return f"bytes.fromhex({str(path).encode().hex()!r}).decode()"


def attacks(task: Path, other: Path, outside: Path) -> dict[str, str]:
    """Agent code, one per attack; each also writes nothing of its own unless it says so."""
    link = CLEAN + "import os\ntry:\n    os.symlink({target}, {name!r})\nexcept OSError:\n    pass\nprint('planted')\n"
    constant = CLEAN + constant_submission_code(OWN_SCORE)
    return {
        "answers": link.format(target=hidden(task / "private" / "answers.csv"), name="/workdir/submission.csv"),
        "other_answers": link.format(target=hidden(other / "private" / "answers.csv"), name="/workdir/submission.csv"),
        "passwd": link.format(target="'/etc/passwd'", name="/workdir/submission.csv"),
        "dev_zero": link.format(target="'/dev/zero'", name="/workdir/submission.csv"),
        "fifo": CLEAN + "import os\nos.mkfifo('/workdir/submission.csv')\nprint('planted')\n",
        "directory": CLEAN + "import os\nos.makedirs('/workdir/submission.csv/x', exist_ok=True)\nprint('planted')\n",
        "hard_link": (CLEAN + "import os\nfor source in ('/public/test.csv', " + hidden(task / "private" / "answers.csv") + "):\n"
                      "    try:\n        os.link(source, '/workdir/submission.csv')\n    except OSError:\n        pass\n"
                      "print('planted')\n"),
        # A valid own submission, with the kept copies' names pointing at private and outside files.
        "nodes_links": constant + "import os\nos.makedirs('/workdir/.nodes', exist_ok=True)\n" + "".join(
            f"try:\n    os.symlink({hidden(target)}, '/workdir/.nodes/node{index}.csv')\nexcept OSError:\n    pass\n"
            for index, target in enumerate([task / "private" / "grading.json", outside / "host.txt",
                                            outside / "created-by-agent", task / "private" / "answers.csv"] * 3)),
        "nodes_dir_link": constant + f"import os, shutil\nshutil.rmtree('/workdir/.nodes', ignore_errors=True)\n"
                                     f"os.symlink({hidden(outside)}, '/workdir/.nodes')\n",
    }


def fingerprint(root: Path) -> dict[str, str]:
    """Every file under root except episode workdirs, by content hash; /etc/passwd too."""
    found = {"/etc/passwd": hashlib.sha256(Path("/etc/passwd").read_bytes()).hexdigest()}
    for path in sorted(root.rglob("*")):
        if "work" not in path.relative_to(root).parts[0] and path.is_file():
            found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def secrets_of(world) -> list[str]:
    root, task, other, outside = world
    rows = [line for t in (task, other) for line in (t / "private" / "answers.csv").read_text().splitlines()[1:]]
    return [str(root), "HOST-FILE-CONTENT", "root:x:0:0", *rows]


def replies_for(scaffold: str, codes: list[str]) -> list[str]:
    if scaffold == "react-sandmle":
        score = '<think>t</think><tool_call>{"name": "Score", "arguments": {"competition_id": "x"}}</tool_call>'
        return [r for code in codes for r in (f"<think>t</think><tool_call>\npython\n<code>\n{code}\n</code>\n</tool_call>",
                                               score)] + ["<think>t</think><answer>submission</answer>"]
    if scaffold == "react":
        return [r for code in codes for r in (f"<think>t</think><python>{code}</python>", "<validate/>")] + [
            "<answer>submission.csv</answer>"]
    if scaffold == "mle_agent":
        import json

        return [json.dumps({"action": "execute_code", "params": {"code": code}}) for code in codes] + [
            json.dumps({"action": "request_info", "params": {"info_type": "overview"}})]
    # AIDE and AIRA: each node runs one attack and a review that lies (no bug, a perfect metric).
    return [r for code in codes for r in (f"Plan.\n\n```python\n{code}```", review_json(is_bug=False, metric=1.0))]


def assert_contained(world, before, trajectory):
    root = world[0]
    assert fingerprint(root) == before
    assert not (world[3] / "created-by-agent").exists()
    text = trajectory.to_json()
    leaked = [secret for secret in secrets_of(world) if secret in text]
    assert not leaked, leaked[:3]
    grade = trajectory.grade
    assert grade is not None and (not grade.valid_submission or grade.score <= OWN_SCORE + 1e-9)


@pytest.mark.parametrize("path", ["warm", "cold"])
@pytest.mark.parametrize("scaffold", ["aide", "aira", "react", "react-sandmle", "mle_agent"])
def test_planted_links_and_special_files_are_refused(world, pool, tmp_path, scaffold, path):
    root, task, other, outside = world
    before = fingerprint(root)
    codes = attacks(task, other, outside)
    # The node-link attacks come last, so AIDE's and AIRA's final restore goes through the planted names.
    order = list(codes)
    steps = len(order)
    config = EpisodeConfig(feedback="validate", max_turns=steps + 1, step_timeout_s=20.0,
                           scaffold_options={"num_drafts": steps, "steps": steps, "debug_prob": 0.0}
                           if scaffold in ("aide", "aira") else {"dialect": "sandmle"} if scaffold == "react-sandmle" else {})
    trajectory = run_episode(task, scaffold=scaffold.split("-")[0], policy=ScriptedPolicy(replies_for(scaffold, [codes[n] for n in order])),
                             config=config, workdir=tmp_path / f"work-{scaffold}", pool=pool if path == "warm" else None)
    assert trajectory.error is None, trajectory.error
    assert_contained(world, before, trajectory)
    observations = "\n".join(t["observation"] for t in trajectory.turns if t["role"] == "tool")
    assert "symbolic link" in observations or "removed" in observations
    if scaffold in ("aide", "aira"):
        # The kept copies are the agent's own file, not what the planted links pointed at.
        nodes = tmp_path / f"work-{scaffold}" / ".nodes"
        assert nodes.is_dir() and not nodes.is_symlink()
        for kept in nodes.iterdir():
            assert not kept.is_symlink() and "yes" not in kept.read_text().split("\n", 1)[1]


def test_deep_tree_and_huge_submission_end_as_ordinary_episodes_in_a_batch(world, pool):
    task = world[1]
    deep = ("import os\nfor _ in range(1500):\n    os.mkdir('d')\n    os.chdir('d')\nprint('deep')\n")
    huge = ("with open('/workdir/submission.csv', 'w') as out:\n    out.write('id,label\\n')\n"
            "    out.write(''.join(f'{i},0.5\\n' for i in range(300_000)))\nprint('huge')\n")

    def reply(messages, sampling):
        done = sum(m["role"] == "assistant" for m in messages)
        script = [deep, constant_submission_code(OWN_SCORE)] if sampling.seed == 0 else [huge]
        if done < len(script):
            return f"<think>t</think><python>{script[done]}</python>"
        return "<answer>submission.csv</answer>"

    trajectories = run_batch([task], scaffold="react", policy_spec=ScriptedPolicy(reply_fn=reply), samples=2,
                             concurrency=1, config=EpisodeConfig(step_timeout_s=30.0), pool=pool)
    assert [t.termination for t in trajectories] == ["answered", "answered"]
    deep_episode, huge_episode = trajectories
    assert "nested more than" in deep_episode.turns[1]["observation"]
    assert deep_episode.grade.valid_submission and deep_episode.grade.score == pytest.approx(OWN_SCORE)
    assert not huge_episode.grade.valid_submission
    assert "MB allowed" in huge_episode.grade.errors[0]
