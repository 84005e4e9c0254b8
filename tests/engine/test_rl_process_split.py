"""A tasks_per_step that does not split over the training processes is refused before any model loads, and the
refusal names the way out: the nearest tasks_per_step that split on those processes, the process counts that split
this one (the paper's 16 tasks x 4 on the README's 7 training processes: 14 or 21, or 8 processes)."""

from __future__ import annotations

import pytest

from sandmle.rl.config import load_train_config
from sandmle.rl.process_split import check_process_split, splits
from sandmle.settings import ConfigError


def test_the_paper_step_on_seven_processes_names_the_values_that_split():
    with pytest.raises(ConfigError) as caught:
        check_process_split(tasks_per_step=16, group_size=4, micro_batch=4, processes=7)
    assert caught.value.key == "tasks_per_step"
    assert str(caught.value) == ("tasks_per_step: 16 groups of 4 episodes do not split evenly over 7 training "
                                 "processes (each needs whole groups, in micro-batches of 4): use tasks_per_step 14 "
                                 "or 21 on 7 processes, or 4 or 8 processes for tasks_per_step 16")
    for tasks, processes in ((14, 7), (21, 7), (16, 8), (16, 4)):
        assert splits(tasks_per_step=tasks, group_size=4, micro_batch=4, processes=processes)
        check_process_split(tasks_per_step=tasks, group_size=4, micro_batch=4, processes=processes)


def test_whole_groups_and_whole_micro_batches_a_process():
    # 3 tasks over 2 processes would split a group; 64 episodes over 3 would not split at all.
    assert not splits(tasks_per_step=3, group_size=4, micro_batch=1, processes=2)
    assert not splits(tasks_per_step=16, group_size=4, micro_batch=1, processes=3)
    # 8 episodes a process do not fill micro-batches of 16; 6 tasks on 2 processes do fill micro-batches of 12.
    assert not splits(tasks_per_step=4, group_size=4, micro_batch=16, processes=2)
    assert splits(tasks_per_step=6, group_size=4, micro_batch=12, processes=2)
    # The nearest on each side that exists: no tasks_per_step below 3 splits over 7, no count above 7 splits 3.
    with pytest.raises(ConfigError, match=r"use tasks_per_step 7 on 7 processes, or 3 processes for "
                                          r"tasks_per_step 3$"):
        check_process_split(tasks_per_step=3, group_size=4, micro_batch=4, processes=7)


def test_train_grpo_refuses_before_the_model_loads(tmp_path, monkeypatch):
    from sandmle.rl.grpo import train_grpo

    # A checkpoint folder with nothing in it: loading it would fail on its missing files, not on the split.
    (tmp_path / "checkpoint").mkdir()
    task = tmp_path / "task"
    (task / "public").mkdir(parents=True)
    config = load_train_config({"model": str(tmp_path / "checkpoint"), "tasks": [str(task)],
                                "output_dir": str(tmp_path / "run"), "preset": "sandmle-paper"})
    monkeypatch.setenv("WORLD_SIZE", "7")
    with pytest.raises(ConfigError, match="^tasks_per_step: 16 groups .* use tasks_per_step 14 or 21 on 7 "
                                          "processes, or 4 or 8 processes"):
        train_grpo(config)
    assert not (tmp_path / "run" / "config.yaml").exists()  # refused before the run writes anything
