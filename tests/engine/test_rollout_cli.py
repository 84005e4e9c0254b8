"""`sandmle rollout` as a subprocess: the baseline over a small bundle, the JSONL file, the summary, bad arguments."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.engine.rollout_bundles import make_bundle


def rollout(*args):
    return subprocess.run([sys.executable, "-m", "sandmle.cli", "rollout", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def test_rollout_command_writes_trajectories_and_prints_the_summary(tmp_path):
    task_dir = make_bundle(tmp_path, kind="multiclass")
    out = tmp_path / "runs" / "baseline.jsonl"
    done = rollout(task_dir, "--scaffold", "react", "--policy", "baseline", "--samples", "2", "--out", out,
                   "--feedback", "validate")
    assert done.returncode == 0, done.stderr

    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["episodes"] == 2 and summary["valid_rate"] == 1.0
    assert 0.0 <= summary["medal_rate"] <= 1.0
    assert summary["mean_reward"]["dense"] >= 0.2 + 0.1  # valid, and every turn well formed
    assert summary["mean_step_latency_s"] > 0
    # The scripted baseline generates no tokens: its calls are counted, no tokens-per-second figure is made up.
    assert summary["generate_calls"] >= 2 and "tokens_per_s" not in summary and "engine" not in summary
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["sample_index"] for r in records] == [0, 1]
    assert all(r["termination"] == "answered" and r["scaffold"] == "react" and r["policy"] == "baseline" for r in records)
    assert all(r["grade"]["valid_submission"] and "dense" in r["rewards"] for r in records)
    assert any(t["kind"] == "validate" for t in records[0]["turns"])
    # G > 1 samples whose rewards are all equal under a scheme are flagged: GRPO on them would learn nothing.
    flat = [row["name"] for row in summary["reward_schemes"]["schemes"] if row["zero_spread_share"] == 1.0]
    warned = [line for line in done.stderr.splitlines() if line.startswith("sandmle rollout: warning: All 1 groups")]
    assert bool(warned) == bool(flat)
    assert all(f"under the {' and '.join(flat)} reward" in line and "scripted program" in line for line in warned)


def test_one_bad_argument_exits_2_with_one_line(tmp_path):
    task_dir = make_bundle(tmp_path, kind="binary")
    done = rollout(task_dir, "--scaffold", "react", "--policy", "baseline", "--samples", "0", "--out", tmp_path / "out.jsonl")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["sandmle rollout: --samples, --concurrency, --max-turns and --max-tokens must be at least 1"]
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize("bad, message", [
    (["--policy", "gpt-4"], "unknown policy spec 'gpt-4'"),
    (["--policy", "baseline:x"], "integer seed"),
    (["--scaffold", "autogpt"], "invalid choice: 'autogpt'"),
    (["--api-key-env", "MY_KEY"], "--api-key-env applies to openai"),
    (["--judge-url", "http://127.0.0.1:9/v1"], "--judge-url and --judge-model go together"),
    (["--judge-url", "ftp://judge", "--judge-model", "j"], "must be an http(s) URL"),
    (["--rubric-weight", "2"], "rubric weight 2.0"),
    (["--scaffold-option", "dialect=klingon"], "scaffold option 'dialect' of react: 'klingon' is not one of studio, sandmle"),
    (["--scaffold-option", "num_drafts=3"], "unknown scaffold option 'num_drafts' for react"),
    (["--scaffold-option", "preset=turbo"], "scaffold option 'preset' of react: 'turbo' is not one of fast, paper, upstream"),
    (["--scaffold-option", "max_tokens"], "--scaffold-option 'max_tokens': expected KEY=VALUE"),
])
def test_unusable_arguments_in_process(tmp_path, capsys, bad, message):
    from sandmle.cli import main

    arguments = {"--scaffold": "react", "--policy": "baseline", "--out": str(tmp_path / "out.jsonl")}
    arguments.update(dict(zip(bad[::2], bad[1::2])))
    try:
        code = main(["rollout", str(make_bundle(tmp_path, kind="binary")), *[part for pair in arguments.items() for part in pair]])
    except SystemExit as exit_:  # argparse's own errors
        code = exit_.code
    error = capsys.readouterr().err
    assert code == 2 and len(error.strip().splitlines()) == 1 and message in error
    assert not (tmp_path / "out.jsonl").exists()

    code = main(["rollout", str(tmp_path), "--scaffold", "aide", "--policy", "baseline", "--out", str(tmp_path / "out.jsonl")])
    assert code == 2 and "not a task bundle" in capsys.readouterr().err


def test_rollout_with_a_rubric_judge(tmp_path, capsys, chat_server, monkeypatch):
    from sandmle.cli import main

    monkeypatch.setenv("JUDGE_KEY", "sk-judge")
    chat_server.reply_fn = lambda request: json.dumps({"met": True, "reason": "yes"})
    out = tmp_path / "judged.jsonl"
    code = main(["rollout", str(make_bundle(tmp_path, kind="binary")), "--scaffold", "react", "--policy", "baseline",
                 "--out", str(out), "--judge-url", chat_server.base_url, "--judge-model", "judge",
                 "--judge-key-env", "JUDGE_KEY", "--rubric-weight", "0.5"])
    assert code == 0, capsys.readouterr().err
    record = json.loads(out.read_text())
    assert record["rewards"]["rubric"]["total"] == pytest.approx(1.0)
    dense = record["rewards"]["dense"]["total"]
    assert record["rewards"]["dense+rubric"]["total"] == pytest.approx(0.5 * dense + 0.5)
    assert {request["_headers"]["authorization"] for request in chat_server.requests} == {"Bearer sk-judge"}
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["mean_reward"]["rubric"] == pytest.approx(1.0)


def test_rollout_in_the_sandmle_dialect_with_the_upstream_preset(tmp_path, capsys):
    from sandmle.cli import main

    out = tmp_path / "sandmle.jsonl"
    code = main(["rollout", str(make_bundle(tmp_path, kind="binary")), "--scaffold", "react", "--policy", "baseline",
                 "--out", str(out), "--feedback", "score", "--scaffold-option", "preset=upstream",
                 "--scaffold-option", "max_turns=6"])
    assert code == 0, capsys.readouterr().err
    record = json.loads(out.read_text())
    assert record["extra"]["scaffold_options"].items() >= {"dialect": "sandmle", "max_turns": 6, "max_tokens": 4096,
                                                           "step_timeout_s": 120.0, "preset": "upstream"}.items()
    assert record["termination"] == "answered" and record["grade"]["valid_submission"] is True
    assert any(t["kind"] == "score" and t["observation"].startswith("Submission OK") for t in record["turns"])
    assert record["format_rate"] == 1.0
