"""`sandmle exec`: one sandboxed step printed as JSON; the scratch dir carries over; unusable arguments exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sandmle.cli import main


def sandmle(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sandmle.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=120)


@pytest.fixture
def task(tmp_path) -> Path:
    (tmp_path / "task" / "public").mkdir(parents=True)
    (tmp_path / "task" / "private").mkdir()
    (tmp_path / "task" / "public" / "train.csv").write_text("id,y\n1,0\n2,1\n")
    (tmp_path / "task" / "private" / "answers.csv").write_text("id,y\n3,SECRET\n")
    return tmp_path / "task"


def test_exec_prints_the_step_and_keeps_the_workdir(task, tmp_path):
    first = tmp_path / "first.py"
    first.write_text("print(open('/public/train.csv').read().count('\\n'))\nopen('model.txt', 'w').write('fitted')")
    done = sandmle("exec", task, first, "--workdir", tmp_path / "work", "--timeout", "30")
    assert done.returncode == 0, done.stderr
    step = json.loads(done.stdout)
    assert step["termination"] == "ok" and step["exit_code"] == 0 and step["stdout"].strip() == "3"
    assert step["files_changed"] == ["model.txt"] and step["wall_s"] > 0
    second = tmp_path / "second.py"
    second.write_text("print(open('model.txt').read())\nprint(open('../private/answers.csv').read())")
    step = json.loads(sandmle("exec", task, second, "--workdir", tmp_path / "work").stdout)
    assert step["termination"] == "error" and step["stdout"].strip() == "fitted"
    assert "SECRET" not in step["stdout"] + step["stderr"]


def test_exec_reports_a_timeout_as_a_result(task, tmp_path):
    loop = tmp_path / "loop.py"
    loop.write_text("while True:\n    pass\n")
    done = sandmle("exec", task, loop, "--timeout", "1")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["termination"] == "timeout"


@pytest.mark.parametrize("arguments,message", [
    (["{tmp}/nowhere", "{tmp}/step.py"], "has no public/ directory"),
    (["{task}", "{tmp}/missing.py"], "no such file"),
    (["{task}", "{tmp}/step.py", "--timeout", "0"], "--timeout must be positive"),
    (["{task}", "{tmp}/step.py", "--memory", "lots"], "invalid int value"),
    (["{task}"], "required"),
])
def test_exec_unusable_arguments_exit_2_with_one_line(task, tmp_path, capsys, arguments, message):
    (tmp_path / "step.py").write_text("print(1)\n")
    try:  # in-process: the command line's own entry point, without paying an interpreter start per case
        code = main(["exec", *[argument.format(tmp=tmp_path, task=task) for argument in arguments]])
    except SystemExit as stop:
        code = stop.code
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert len(captured.err.splitlines()) == 1 and message in captured.err, captured.err
