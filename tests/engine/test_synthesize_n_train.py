"""synthesize(n_train=...) builds every task with that many training rows (the studio's "training rows" control)."""

from __future__ import annotations

from sandmle.seeds.load import load_bundled_seed
from sandmle.synth import synthesize
from sandmle.synth.pipeline import MAX_TRAIN


def test_n_train_fixes_the_training_rows_of_each_attempt(tmp_path):
    (result,) = synthesize(load_bundled_seed("iris"), count=1, rng=21, out_dir=tmp_path, n_train=70,
                           families=("rule_list",))
    assert result.attempts and all(attempt["n_train"] == 70 for attempt in result.attempts)
    assert result.spec.n_train in (70, MAX_TRAIN)  # MAX_TRAIN only by the engine's own low-headroom rebuild
    rows = (result.bundle_dir / "public" / "train.csv").read_text().strip().splitlines()
    assert len(rows) - 1 == result.spec.n_train
