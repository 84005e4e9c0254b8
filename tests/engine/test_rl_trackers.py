"""report_to and run_name: TensorBoard event files written for real next to metrics.jsonl by GRPO and SFT runs of a
tiny Qwen3, read back with TensorBoard's own reader; bad settings and a missing tracker package are named."""

from __future__ import annotations

import json
import os

import pytest

from sandmle.rl.config import load_train_config
from sandmle.settings import ConfigError
from tests.engine.rl_env import make_dummy_tasks, written_token_episode

os.environ.setdefault("OMP_NUM_THREADS", "1")


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from sandmle.rl.tiny_model import build_tiny_checkpoint

    return build_tiny_checkpoint(tmp_path_factory.mktemp("trackers-tiny") / "checkpoint")


def read_events(log_dir):
    """The scalars and text TensorBoard itself reads from the folder's event files."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(log_dir), size_guidance={"scalars": 0, "tensors": 0})
    events.Reload()
    scalars = {tag: [(event.step, event.value) for event in events.Scalars(tag)] for tag in events.Tags()["scalars"]}
    texts = {tag: [event.tensor_proto.string_val[0].decode() for event in events.Tensors(tag)]
             for tag in events.Tags()["tensors"]}
    return scalars, texts


@pytest.mark.torch
def test_grpo_writes_tensorboard_events_beside_metrics_jsonl(tmp_path, checkpoint):
    pytest.importorskip("tensorboard")
    from sandmle.rl.grpo import train_grpo

    config = load_train_config({
        "model": str(checkpoint), "tasks": make_dummy_tasks(tmp_path / "tasks", 1), "output_dir": str(tmp_path / "run"),
        "group_size": 2, "tasks_per_step": 1, "steps": 2, "max_tokens": 6, "save_every": 100,
        "concurrency": 1, "report_to": "tensorboard", "run_name": "grpo-trackers-test",
        "eval_tasks": make_dummy_tasks(tmp_path / "eval-tasks", 1), "eval_every": 2, "eval_samples": 2})
    train_grpo(config, episode_fn=written_token_episode)
    run = tmp_path / "run"
    assert (run / "metrics.jsonl").is_file()
    event_files = list((run / "tensorboard").glob("events.out.tfevents.*"))
    assert event_files and all(path.stat().st_size > 0 for path in event_files)
    scalars, texts = read_events(run / "tensorboard")
    steps = [json.loads(line)["step"] for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [step for step, _ in scalars["train/loss"]] == steps == [1, 2]
    assert any(tag.startswith("train/reward") for tag in scalars), sorted(scalars)
    # Each reward part's step mean reaches the tracker as it reaches metrics.jsonl.
    lines = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [value for _, value in scalars["train/reward_components/written_tokens"]] == pytest.approx(
        [line["reward_components"]["written_tokens"] for line in lines])
    assert [line["reward_components"]["written_tokens"] for line in lines] == pytest.approx(
        [line["reward_mean"] for line in lines])
    # The evaluation at step 2 splits its mean the same way, in the line and in the tracker (eval_* keys go under
    # eval/, as transformers writes them).
    assert "eval_reward_components" not in lines[0]
    assert lines[1]["eval_reward_components"]["written_tokens"] == pytest.approx(lines[1]["eval_reward_mean"])
    assert [(step, pytest.approx(value)) for step, value in scalars["eval/reward_components/written_tokens"]] \
        == [(2, lines[1]["eval_reward_mean"])]
    assert json.loads(texts["args/text_summary"][0])["run_name"] == "grpo-trackers-test"
    assert not (run / "runs").exists()  # transformers' default runs/<date>_<host>/ is not used


@pytest.mark.torch
def test_sft_writes_tensorboard_events_with_the_folder_name_as_default_run_name(tmp_path, checkpoint):
    pytest.importorskip("tensorboard")
    from sandmle.rl.sft import train_sft

    data = tmp_path / "sft.jsonl"
    data.write_text("".join(json.dumps({"messages": [{"role": "user", "content": f"task {i}"},
                                                      {"role": "assistant", "content": "<answer>ok</answer>"}]}) + "\n"
                            for i in range(4)))
    config = load_train_config({"model": str(checkpoint), "dataset": [str(data)], "output_dir": str(tmp_path / "sft-run"),
                                "steps": 2, "batch_size": 2, "save_every": 100, "report_to": ["tensorboard"]},
                               kind="sft")
    train_sft(config)
    scalars, texts = read_events(tmp_path / "sft-run" / "tensorboard")
    assert [step for step, _ in scalars["train/loss"]] == [1, 2]
    assert json.loads(texts["args/text_summary"][0])["run_name"] == "sft-run"


def test_report_to_defaults_to_none_and_refuses_bad_values(tmp_path):
    base = {"model": "m", "tasks": ["t"], "output_dir": str(tmp_path / "run")}
    assert load_train_config(base).report_to == ["none"] and load_train_config(base).run_name is None
    for value, words in ((["none", "tensorboard"], "none cannot be combined"), ("mlflow", "expected one or more of"),
                         (["tensorboard", "tensorboard"], "names one twice"), (7, "expected one or more of")):
        with pytest.raises(ConfigError) as refused:
            load_train_config({**base, "report_to": value})
        assert refused.value.key == "report_to" and words in str(refused.value)
    with pytest.raises(ConfigError) as refused:
        load_train_config({**base, "run_name": ""})
    assert refused.value.key == "run_name"


def test_a_tracker_whose_package_is_missing_is_named_before_the_model_loads(tmp_path, monkeypatch):
    import importlib.util

    from sandmle.rl.trackers import check_trackers

    if importlib.util.find_spec("wandb") is not None:
        pytest.skip("wandb is installed here")
    config = load_train_config({"model": "m", "tasks": ["t"], "output_dir": str(tmp_path / "run"), "report_to": "wandb"})
    with pytest.raises(ConfigError) as refused:
        check_trackers(config)
    assert str(refused.value) == "report_to: wandb is not installed on this machine (pip install wandb)"


def read_trackio(folder, project="sandmle"):
    """Each logged row of trackio's own SQLite file under the run's folder: (run name, step, metrics)."""
    import sqlite3

    with sqlite3.connect(folder / f"{project}.db") as db:
        rows = db.execute("SELECT run_name, step, metrics FROM metrics ORDER BY id").fetchall()
    return [(name, step, json.loads(metrics)) for name, step, metrics in rows]


@pytest.mark.torch
def test_grpo_logs_to_trackio_offline_in_the_runs_folder(tmp_path, checkpoint, monkeypatch):
    pytest.importorskip("trackio")
    import socket

    from sandmle.rl.grpo import train_grpo

    # A worker's environment naming a Space or a server must not send the run anywhere, nor may anything dial out.
    monkeypatch.setenv("TRACKIO_SPACE_ID", "someone/elsewhere")
    monkeypatch.setenv("TRACKIO_SERVER_URL", "http://127.0.0.1:9/?write_token=stolen")
    monkeypatch.setenv("TRACKIO_DIR", str(tmp_path / "process-wide"))
    dialled = []

    def refuse(sock, address):
        dialled.append(address)
        raise OSError("no network in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    config = load_train_config({
        "model": str(checkpoint), "tasks": make_dummy_tasks(tmp_path / "tasks", 1), "output_dir": str(tmp_path / "run"),
        "group_size": 2, "tasks_per_step": 1, "steps": 2, "max_tokens": 6, "save_every": 100,
        "concurrency": 1, "report_to": ["trackio"], "run_name": "grpo-trackio-test",
        "eval_tasks": make_dummy_tasks(tmp_path / "eval-tasks", 1), "eval_every": 2, "eval_samples": 2})
    train_grpo(config, episode_fn=written_token_episode)
    run = tmp_path / "run"
    lines = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    rows = read_trackio(run / "trackio")
    assert {name for name, _, _ in rows} == {"grpo-trackio-test"}
    train = [(step, metrics) for _, step, metrics in rows if "train/loss" in metrics]
    assert [step for step, _ in train] == [line["step"] for line in lines] == [1, 2]
    assert [metrics["train/reward_components/written_tokens"] for _, metrics in train] == pytest.approx(
        [line["reward_components"]["written_tokens"] for line in lines])
    evals = [(step, metrics) for _, step, metrics in rows if "eval/reward_components/written_tokens" in metrics]
    assert [(step, pytest.approx(metrics["eval/reward_components/written_tokens"])) for step, metrics in evals] \
        == [(2, lines[1]["eval_reward_components"]["written_tokens"])]
    assert not dialled and not (tmp_path / "process-wide").exists()


def test_trackio_is_a_tracker_and_names_its_folder(tmp_path):
    from sandmle.rl.trackers import log_dirs

    config = load_train_config({"model": "m", "tasks": ["t"], "output_dir": str(tmp_path / "run"),
                                "report_to": ["tensorboard", "trackio"]})
    assert log_dirs(config) == {"tensorboard": tmp_path / "run" / "tensorboard", "trackio": tmp_path / "run" / "trackio"}
