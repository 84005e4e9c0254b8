"""The reward-hack audit: scripted attacks and degenerate solutions against task bundles and scaffolds, with a
verdict per attack x scaffold x task (see runner.run_audit)."""

from sandmle.audit.attacks import select_attacks
from sandmle.audit.degenerate import DegenerateResult, grade_degenerate
from sandmle.audit.registry import ATTACKS, FAMILIES, Attack, AttackTarget, Code, Feedback, Raw, register
from sandmle.audit.runner import AuditConfig, AuditReport, run_audit
from sandmle.audit.verdict import Verdict

__all__ = ["ATTACKS", "FAMILIES", "Attack", "AttackTarget", "AuditConfig", "AuditReport", "Code", "DegenerateResult",
           "Feedback", "Raw", "Verdict", "grade_degenerate", "register", "run_audit", "select_attacks"]
