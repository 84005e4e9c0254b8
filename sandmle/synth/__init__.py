"""The synthesis pipeline: DNA -> domain -> hidden rule -> data -> noise -> bundle -> calibration -> validation."""

from sandmle.synth.pipeline import GENERATOR_VERSION, SynthesisResult, TaskSpec, build_bundle, synthesize, verify_bundle

__all__ = ["GENERATOR_VERSION", "SynthesisResult", "TaskSpec", "build_bundle", "synthesize", "verify_bundle"]
