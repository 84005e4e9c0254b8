"""A cold (pool-less) step sees the project's Python environment: pandas and scikit-learn import as uid 65534."""

from sandmle.sandbox import Sandbox


def test_cold_step_imports_the_ml_stack(tmp_path):
    public = tmp_path / "public"
    public.mkdir()
    (public / "train.csv").write_text("id,x,y\n1,0.5,0\n2,1.5,1\n")
    sandbox = Sandbox(public_dir=public, workdir=tmp_path / "work")
    result = sandbox.run_python("import pandas, sklearn\nprint(len(pandas.read_csv('/public/train.csv')))")
    assert result.termination == "ok", result.stderr
    assert result.stdout.strip() == "2"
