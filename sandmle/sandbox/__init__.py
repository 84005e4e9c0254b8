"""Isolated execution of untrusted agent code: a bubblewrap sandbox per episode and a warm interpreter pool."""

from sandmle.sandbox.limits import Limits, SandboxUnavailable, StepResult
from sandmle.sandbox.pool import SandboxPool
from sandmle.sandbox.sandbox import Sandbox

__all__ = ["Limits", "Sandbox", "SandboxPool", "SandboxUnavailable", "StepResult"]
