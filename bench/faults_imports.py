#!/usr/bin/env python3
"""Hostile imports and the latency upload's memory, for bench/faults_input.py (issue 24).

hostile_imports() runs every hostile source of tests/engine/test_hostile_imports.py (a link at each component, for all
three formats; traversal ids and answer paths; a hard link; a FIFO) and counts those refused: a UsageError, nothing
left in --out, the host secret in no written file.

latency_upload_memory() writes a wide numeric table (default 60 MiB, 1,000 columns, as the issue measured) and runs the
worker's host-side work on it in fresh processes, side by side: today's streamed split in its capped child plus the
DNA sample's parsing, against the whole-table read the worker did before. peak_mb_per_upload_mb is the growth of the
worker's peak resident memory plus the split child's peak, per MiB of upload (target at most 2).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent

_HOST_SIDE = r"""
import json, resource, sys, tempfile, time
from pathlib import Path
import pandas as pd
from sandmle.latency.study import DNA_SAMPLE_ROWS, check_table, spec_from_dna
from sandmle.latency.table import MAX_SAMPLE_BYTES, split_rows_bounded
from sandmle.seeds.dna import extract_dna
from sandmle.seeds.load import load_csv_seed

def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

def host_side(table, target, mode, scratch):
    child = 0.0
    if mode == "streamed":
        check_table(Path(table), target=target)
        split = split_rows_bounded(Path(table), target=target, out_dir=Path(scratch) / "full", rows=None,
                                   sample_rows=DNA_SAMPLE_ROWS)
        sample = split["sample"].encode()
        child = split["peak_mb"]  # the child's own peak (its ru_maxrss would count this forked process)
    else:  # what the worker did before: the whole table in memory, then a sample of it
        frame = pd.read_csv(table, encoding="utf-8-sig", low_memory=False)
        fit = int(MAX_SAMPLE_BYTES * len(frame) / Path(table).stat().st_size)  # the same sample size as streamed
        sample = frame.sample(n=min(len(frame), DNA_SAMPLE_ROWS, fit), random_state=0).to_csv(index=False).encode()
    spec_from_dna(extract_dna(load_csv_seed(sample, target=target, name="wide")), seed_name="wide", rng=0)
    return child

table, small, target, mode = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
with tempfile.TemporaryDirectory() as scratch:
    host_side(small, target, mode, scratch)  # every lazy import done: the baseline is a warm worker's
baseline = peak_mb()
start = time.time()
child = 0.0
with tempfile.TemporaryDirectory() as scratch:
    child = host_side(table, target, mode, scratch)
print(json.dumps({"worker_growth_mb": peak_mb() - baseline, "child_peak_mb": child, "seconds": time.time() - start}))
"""


def hostile_imports() -> dict:
    from sandmle.errors import UsageError
    from sandmle.formats import mlebench, mledojo, sandmle_layout
    from tests.engine import test_hostile_imports as cases

    tried = refused = 0
    with tempfile.TemporaryDirectory(prefix="bench-hostile-imports-") as scratch:
        scratch = Path(scratch)
        tid = _sources(scratch / "sources")["bundle"].name
        attempts = []
        for name, breaks in cases.MLEBENCH_CASES.items():
            attempts.append(("mlebench", lambda root, h, b=breaks: b(root, tid, h),
                             lambda root, out: mlebench.import_competition(root / "competitions" / tid, out)))
        for name, breaks in cases.MLEDOJO_CASES.items():
            attempts.append(("mledojo", lambda root, h, b=breaks: b(root / "loan-default" / "data", h),
                             lambda root, out: mledojo.import_competition(root / "loan-default", out, metric="auc")))
        for name, breaks in cases.SANDMLE_CASES.items():
            attempts.append(("sandmle", lambda root, h, b=breaks: b(root / tid / "prepared" / "public", h),
                             lambda root, out: sandmle_layout.import_folder(root / tid, out)))
        for bad_id in ("../../escaped", ".hidden", "two words"):
            def traversal(root, h, bad=bad_id):
                config_path = root / "competitions" / tid / "config.yaml"
                config = yaml.safe_load(config_path.read_text())
                config["id"] = bad
                del config["dataset"]["answers"]
                config_path.write_text(yaml.safe_dump(config))
                shutil.copytree(root / "data" / tid, root / "data" / bad)
            attempts.append(("mlebench", traversal,
                             lambda root, out: mlebench.import_competition(root / "competitions" / tid, out)))
        def answers_at(path_of):
            def breaks(root, h):
                config_path = root / "competitions" / tid / "config.yaml"
                config = yaml.safe_load(config_path.read_text())
                config["dataset"]["answers"] = path_of(h)
                config_path.write_text(yaml.safe_dump(config))
            return breaks
        for path_of in (lambda h: str(h / "answers.csv"), lambda h: "../../../host/answers.csv"):
            attempts.append(("mlebench", answers_at(path_of),
                             lambda root, out: mlebench.import_competition(root / "competitions" / tid, out)))
        dojo = lambda root, out: mledojo.import_competition(root / "loan-default", out, metric="auc")  # noqa: E731

        def hard_link(root, h):
            description = root / "loan-default" / "data" / "public" / "description.txt"
            description.unlink()
            os.link(h / "secret.txt", description)
        attempts.append(("mledojo", hard_link, dojo))
        attempts.append(("mledojo", lambda root, h: os.mkfifo(root / "loan-default" / "data" / "public" / "s.csv"),
                         dojo))
        for index, (fmt, breaks, call) in enumerate(attempts):
            case_dir = scratch / f"case-{index}"
            host = case_dir / "host"
            host.mkdir(parents=True)
            for name in ("settings.env", "secret.txt"):
                (host / name).write_text(cases.SECRET + "\n")
            (host / "sample_submission.csv").write_text("id,label\n1,0.5\n")
            (host / "answers.csv").write_text(f"id,label\n{cases.SECRET},yes\n")
            root = case_dir / "deep" / "src"
            shutil.copytree(scratch / "sources" / fmt, root)
            breaks(root, host)
            out = case_dir / "deep" / "out"
            tried += 1
            try:
                call(root, out)
            except UsageError:
                if (not out.exists() or not any(out.iterdir())) and not cases.leaked(out) \
                        and not (case_dir / "escaped").exists():
                    refused += 1
    return {"hostile_imports_tried": tried, "hostile_imports_refused": refused}


def _sources(root: Path) -> dict:
    """The clean sources of the test module's fixture, built here without pytest's machinery."""
    import pandas as pd

    from sandmle.formats import mlebench, sandmle_layout
    from tests.engine.rollout_bundles import make_bundle

    bundle = make_bundle(root / "tasks", kind="binary", rows=60)
    mlebench.export_task(bundle, root / "mlebench")
    sandmle_layout.export_task(bundle, root / "sandmle")
    dojo = root / "mledojo" / "loan-default" / "data"
    (dojo / "public").mkdir(parents=True)
    (dojo / "private").mkdir()
    for path in (bundle / "public").iterdir():
        if path.name != "description.md":
            shutil.copyfile(path, dojo / "public" / path.name)
    (dojo / "public" / "description.txt").write_text("Predict loan defaults.\n")
    pd.read_csv(bundle / "private" / "answers.csv").drop(columns=["leaderboard"]).to_csv(
        dojo / "private" / "test_answer.csv", index=False)
    pd.DataFrame({"rank": range(1, 11), "score": [0.95 - 0.03 * i for i in range(10)]}).to_csv(
        dojo / "private" / "private_leaderboard.csv", index=False)
    return {"bundle": bundle}


def _wide_table(path: Path, megabytes: int) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    columns = 1000
    header = ",".join([f"f{i}" for i in range(columns - 1)] + ["target"]) + "\n"
    with open(path, "w") as out:
        out.write(header)
        while out.tell() < megabytes << 20:
            block = rng.normal(size=(500, columns)).round(3)
            block[:, -1] = (block[:, 0] > 0).astype(int)
            out.write("\n".join(",".join(f"{v:g}" for v in row) for row in block) + "\n")


def latency_upload_memory(megabytes: int | None = None) -> dict:
    megabytes = megabytes or int(os.environ.get("BENCH_LATENCY_TABLE_MB", "60"))
    with tempfile.TemporaryDirectory(prefix="bench-latency-table-") as scratch:
        table, small = Path(scratch) / "wide.csv", Path(scratch) / "small.csv"
        _wide_table(table, megabytes)
        with open(table) as source, open(small, "w") as out:
            out.writelines(line for _, line in zip(range(300), source))
        size_mb = table.stat().st_size / 2**20
        figures = {}
        for mode in ("streamed", "whole"):
            done = subprocess.run([sys.executable, "-c", _HOST_SIDE, str(table), str(small), "target", mode],
                                  capture_output=True,
                                  text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=1800)
            if done.returncode != 0:
                raise RuntimeError(done.stderr[-2000:])
            measured = json.loads(done.stdout.strip().splitlines()[-1])
            figures[mode] = measured["worker_growth_mb"] + measured["child_peak_mb"]
            figures[f"{mode}_s"] = measured["seconds"]
    return {"latency_upload_mb": round(size_mb, 1),
            "peak_mb_per_upload_mb": round(figures["streamed"] / size_mb, 2),
            "peak_mb_per_upload_mb_whole_read": round(figures["whole"] / size_mb, 2),
            "latency_host_side_s": round(figures["streamed_s"], 1),
            "latency_host_side_s_whole_read": round(figures["whole_s"], 1)}


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    for name, value in {**hostile_imports(), **latency_upload_memory()}.items():
        print(f"RESULT {name}={value}")
