"""One vLLM OpenAI-compatible server (its CPU build) on a tiny Qwen3 per test session, started as a user would:
`python -m vllm.entrypoints.openai.api_server`. Tests that need it skip where vLLM is not installed."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

SERVED_NAME = "tiny"
STARTUP_S = 600.0  # a cold start on 2 busy cores: imports, model load, CPU kernels' warm-up


@dataclass
class VLLMServer:
    base_url: str
    checkpoint: Path

    @property
    def policy_spec(self) -> str:
        return f"openai:{SERVED_NAME}@{self.base_url}"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
def vllm_server(tmp_path_factory):
    pytest.importorskip("vllm")
    from sandmle.agents.policies.vllm_schedule import PROCESSOR_PATH
    from sandmle.rl.tiny_model import VLLM_CPU_HEAD_DIM, build_tiny_checkpoint

    checkpoint = build_tiny_checkpoint(tmp_path_factory.mktemp("vllm-served") / "checkpoint", head_dim=VLLM_CPU_HEAD_DIM)
    port = _free_port()
    log_path = checkpoint.parent / "server.log"
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1", "OMP_NUM_THREADS": "1"}
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(checkpoint),
             "--served-model-name", SERVED_NAME, "--host", "127.0.0.1", "--port", str(port), "--dtype", "float32",
             "--max-model-len", "4096", "--seed", "0",
             # vLLM's CPU build fails a seeded request whose prompt is prefilled in chunks ("CPU Generator does not use
             # offset": it rewinds a generator the CPU's cannot), which ends the engine: whole prompts only.
             "--no-enable-chunked-prefill", "--max-num-batched-tokens", "4096",
             # The annealed sampling schedule's processor, and logprobs of the distribution each token came from.
             "--logits-processors", PROCESSOR_PATH, "--logprobs-mode", "processed_logprobs"],
            stdout=log, stderr=subprocess.STDOUT, env=env)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + STARTUP_S
        while True:
            if process.poll() is not None:
                pytest.fail(f"the vLLM server exited with {process.returncode}:\n{log_path.read_text()[-3000:]}")
            try:
                if httpx.get(f"{base_url}/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the vLLM server did not answer in {STARTUP_S} s:\n{log_path.read_text()[-3000:]}")
            time.sleep(1.0)
        yield VLLMServer(base_url=base_url, checkpoint=checkpoint)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
