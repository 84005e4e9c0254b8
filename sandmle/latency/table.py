"""A user's large table split for the latency study in bounded memory: one row at a time, in a child process whose
address space is capped, so a curator's upload cannot take the worker's memory whatever its size or shape.

The child streams the CSV twice: rows without a target are dropped, a fifth of the rest (drawn at random) go to
test.csv and the others to train.csv (up to `rows`), an `id` column is added when the table has none, and a uniform
random sample of rows (reservoir sampling, kept as encoded lines) is returned for the synthesized twin's DNA.
"""

from __future__ import annotations

import csv
import io
import json
import random
import resource
import subprocess
import sys
from pathlib import Path

from sandmle.errors import UsageError

TEST_SHARE = 0.2
# What pandas reads as a missing value by default: a row whose target is one of these has no target.
MISSING = {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A",
           "NA", "NULL", "NaN", "None", "n/a", "nan", "null"}
# The child needs the interpreter and the csv module only; 512 MiB of address space is ample and bounds it.
CHILD_ADDRESS_SPACE = 512 << 20
MAX_FIELD_BYTES = 16 << 20  # one cell; csv's default (128 KiB) refuses long text cells
# The DNA sample is parsed as a seed (at most 20 MiB); a wide table's sample keeps fewer rows to stay well under it.
MAX_SAMPLE_BYTES = 4 << 20


def _rows(source, header: list[str], target_at: int):
    """(index, row) of every row with a target; a row of the wrong width is refused."""
    for index, row in enumerate(csv.reader(source)):
        if len(row) != len(header):
            raise UsageError(f"--csv: row {index + 2} has {len(row)} fields; the header has {len(header)}")
        if row[target_at].strip() not in MISSING:
            yield index, row


def _open_table(csv_path: Path, target: str):
    source = open(csv_path, encoding="utf-8-sig", newline="")
    try:
        header = [name.strip() for name in next(csv.reader(source))]
    except StopIteration:
        source.close()
        raise UsageError("--csv: the table is empty") from None
    if target not in header:
        source.close()
        raise UsageError(f"--target: {target!r} is not a column of the table")
    return source, header, header.index(target)


def _line(row: list[str]) -> str:
    line = io.StringIO()
    csv.writer(line).writerow(row)
    return line.getvalue()


def split_rows(csv_path: Path, *, target: str, out_dir: Path, rows: int | None, sample_rows: int,
               rng: int = 0) -> dict:
    """Write out_dir/public/{train,test}.csv from the table; return the counts and the DNA sample as CSV text.

    Two passes: the first counts the rows with a target, so that the second draws exactly a fifth of them for test
    (selection sampling) while it keeps a uniform sample of them for the DNA (reservoir sampling).
    """
    csv.field_size_limit(MAX_FIELD_BYTES)
    draw = random.Random(rng)
    source, header, target_at = _open_table(csv_path, target)
    with source:
        kept = sum(1 for _ in _rows(source, header, target_at))
        # The reservoir holds about MAX_SAMPLE_BYTES of lines whatever the table's width.
        bytes_per_row = max(1.0, source.tell() / max(kept, 1))
    sample_rows = max(1, min(sample_rows, int(MAX_SAMPLE_BYTES / bytes_per_row)))
    n_test_wanted = max(1, int(kept * TEST_SHARE))
    if kept - n_test_wanted < 1:
        raise UsageError(f"--csv: the table has {kept} rows with a target; too few to split into train and test")
    public = Path(out_dir) / "public"
    public.mkdir(parents=True)
    add_id = "id" not in header
    source, header, target_at = _open_table(csv_path, target)
    with source, open(public / "train.csv", "w", encoding="utf-8", newline="") as train_file, \
            open(public / "test.csv", "w", encoding="utf-8", newline="") as test_file:
        train, test = csv.writer(train_file), csv.writer(test_file)
        train.writerow((["id"] if add_id else []) + header)
        test.writerow((["id"] if add_id else []) + [name for name in header if name != target])
        sample: list[str] = []
        seen = n_train = n_test = 0
        for index, row in _rows(source, header, target_at):
            seen += 1
            if len(sample) < sample_rows:
                sample.append(_line(row))
            elif (slot := draw.randrange(seen)) < sample_rows:
                sample[slot] = _line(row)
            full = ([f"row_{index}"] if add_id else []) + row
            if draw.random() * (kept - seen + 1) < n_test_wanted - n_test:
                del full[target_at + add_id]
                test.writerow(full)
                n_test += 1
            elif rows is None or n_train < rows:
                train.writerow(full)
                n_train += 1
    draw.shuffle(sample)  # any prefix of a shuffled uniform sample is a uniform sample
    kept_bytes, cut = len(_line(header)), 0
    while cut < len(sample) and kept_bytes + len(sample[cut]) <= MAX_SAMPLE_BYTES:
        kept_bytes += len(sample[cut])
        cut += 1
    return {"train_rows": n_train, "test_rows": n_test, "sample": _line(header) + "".join(sample[:cut])}


def _cap_address_space() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_ADDRESS_SPACE, CHILD_ADDRESS_SPACE))


def split_rows_bounded(csv_path: Path, *, target: str, out_dir: Path, rows: int | None, sample_rows: int,
                       rng: int = 0, timeout_s: float = 3600.0) -> dict:
    """split_rows in a child process under CHILD_ADDRESS_SPACE; its refusals come back as the same UsageError."""
    request = json.dumps({"csv_path": str(csv_path), "target": target, "out_dir": str(out_dir), "rows": rows,
                          "sample_rows": sample_rows, "rng": rng})
    try:
        done = subprocess.run([sys.executable, "-m", "sandmle.latency.table"], input=request, capture_output=True,
                              text=True, timeout=timeout_s, preexec_fn=_cap_address_space)
    except subprocess.TimeoutExpired:
        raise UsageError(f"--csv: splitting the table took more than {timeout_s:.0f} s") from None
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["no reason given"])[-1]
        if "MemoryError" in done.stderr:
            reason = "a row is larger than the memory the split may use"
        raise UsageError(reason if reason.startswith("--") else f"--csv: the table could not be split: {reason}")
    return json.loads(done.stdout)


def main() -> int:
    request = json.loads(sys.stdin.read())
    try:
        result = split_rows(Path(request["csv_path"]), target=request["target"], out_dir=Path(request["out_dir"]),
                            rows=request["rows"], sample_rows=request["sample_rows"], rng=request["rng"])
    except (UsageError, csv.Error, UnicodeDecodeError) as error:
        message = str(error) if isinstance(error, UsageError) else f"--csv: the table could not be read: {error}"
        print(message.splitlines()[0], file=sys.stderr)
        return 2
    result["peak_mb"] = _peak_mb()
    sys.stdout.write(json.dumps(result))
    return 0


def _peak_mb() -> float | None:
    """This process's own peak resident memory since exec (VmHWM; ru_maxrss would count the forked parent's)."""
    try:
        with open("/proc/self/status") as status:
            line = next(line for line in status if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return None
    return int(line.split()[1]) / 1024


if __name__ == "__main__":
    sys.exit(main())
