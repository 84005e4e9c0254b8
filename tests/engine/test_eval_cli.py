"""The command line: `sandmle eval` files and table, `python -m sandmle`, and a closed pipe ending quietly."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.engine.rollout_bundles import make_bundle


def sandmle(*args, **options):
    return subprocess.run([sys.executable, "-m", "sandmle", *map(str, args)], capture_output=True, text=True,
                          timeout=300, **options)


def test_python_dash_m_sandmle_is_the_command_line():
    done = sandmle("--help")
    assert done.returncode == 0 and "eval" in done.stdout and "rollout" in done.stdout


def test_output_into_a_closed_pipe_ends_quietly():
    # The reader is gone before the first write, so the write must fail: the case `| head` hits on long output.
    child = subprocess.Popen([sys.executable, "-m", "sandmle", "dna", "iris"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    child.stdout.close()
    stderr = child.stderr.read().decode()
    assert child.wait(timeout=120) == 1
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr and stderr == ""
    piped = subprocess.run(f"{sys.executable} -m sandmle dna iris | head -1", shell=True, capture_output=True,
                           text=True, timeout=120)
    assert piped.returncode == 0 and piped.stderr == "" and piped.stdout.strip()


def test_eval_writes_episodes_reports_and_prints_the_table(tmp_path):
    tasks = tmp_path / "tasks"
    make_bundle(tasks, kind="multiclass", rows=80)
    out = tmp_path / "campaign"
    done = sandmle("eval", "--policy", "baseline", "--scaffold", "react", "aide", "--tasks", tasks, "--seeds", "1",
                   "--out", out, "--feedback", "validate", "--max-turns", "4", "--metric", "valid_rate",
                   "--scaffold-option", "react.dialect=sandmle", "--scaffold-option", "aide.num_drafts=1",
                   "--scaffold-option", "aide.data_preview=false")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].split()[:3] == ["valid_rate", "(mean±SEM)", "react"] and "aide" in lines[0]
    assert lines[2].startswith("baseline") and "1.000±0.000" in lines[2]
    # Every cell at 1.000 cannot tell the scaffolds apart, and the run says so.
    assert ("sandmle eval: warning: valid_rate is 1.000 in every cell: at this ceiling the table cannot tell "
            "scaffolds or policies apart; read a medal rate or the scores instead.") in done.stderr.splitlines()
    assert json.loads(lines[-1])["episodes"] == 2
    assert len((out / "episodes.jsonl").read_text().splitlines()) == 2
    report = json.loads((out / "report.json").read_text())
    assert report["scaffolds"] == ["react", "aide"] and report["complete"] is True
    assert len((out / "report.csv").read_text().splitlines()) == 3
    episodes = {e["scaffold"]: e for e in map(json.loads, (out / "episodes.jsonl").read_text().splitlines())}
    assert episodes["react"]["trajectory"]["extra"]["scaffold_options"]["dialect"] == "sandmle"
    assert episodes["aide"]["trajectory"]["extra"]["scaffold_options"].items() >= {"num_drafts": 1, "data_preview": False}.items()


def test_eval_with_a_bad_argument_exits_2_with_one_line(tmp_path):
    make_bundle(tmp_path, kind="binary", rows=60)
    done = sandmle("eval", "--policy", "baseline", "--scaffold", "react", "--tasks", tmp_path, "--seeds", "0",
                   "--out", tmp_path / "out")
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0 and "seeds: " in done.stderr
    done = sandmle("eval", "--policy", "baseline", "--scaffold", "react", "--tasks", tmp_path / "none",
                   "--out", tmp_path / "out")
    assert done.returncode == 2 and "--tasks: " in done.stderr
    done = sandmle("eval", "--policy", "baseline", "--scaffold", "react", "aira", "--tasks", tmp_path,
                   "--out", tmp_path / "out", "--scaffold-option", "aira.memory=everything")
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0
    assert "scaffold option 'memory' of aira: 'everything' is not one of all, branch" in done.stderr
    done = sandmle("eval", "--policy", "baseline", "--scaffold", "react", "--tasks", tmp_path,
                   "--out", tmp_path / "out", "--scaffold-option", "aide.steps=2")
    assert done.returncode == 2 and "'aide' is not one of the scaffolds run (react)" in done.stderr
