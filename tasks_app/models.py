"""Rows of the task side: seeds and their DNA, synthesis runs (jobs), synthesized tasks, reviews, task sets.

Each feature keeps its rows in its own models.py; importing them here registers them under this app's label, so
tables and migrations stay as they are."""

from tasks_app.frontier.models import FrontierRun, FrontierSuccessor
from tasks_app.review.models import ReviewComment, ReviewDecision, SavedReviewView, TaskAuditEntry
from tasks_app.seeds.models import Seed, TaskDNA
from tasks_app.synthesis.models import SynthesisRun
from tasks_app.task_sets.models import TaskSet, TaskSetChange
from tasks_app.task_archives.models import TaskArchiveImport, TaskSetExport
from tasks_app.tasks.models import SynthesizedTask

__all__ = [
    "Seed", "TaskDNA", "SynthesisRun", "SynthesizedTask", "ReviewComment", "ReviewDecision", "TaskAuditEntry",
    "SavedReviewView", "TaskSet", "TaskSetChange", "TaskArchiveImport", "TaskSetExport",
    "FrontierRun", "FrontierSuccessor",
]
