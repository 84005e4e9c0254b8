"""Rows of the training side: rollout batches and their trajectories, evaluation campaigns and their episodes,
training runs and latency studies.

Each feature keeps its rows in its own models.py; importing them here registers them under this app's label, so
tables and migrations stay as they are."""

from training_app.audits.models import AuditVerdict, DegenerateScore, TaskSetAudit
from training_app.campaigns.models import CampaignEpisode, EvalCampaign
from training_app.latency.models import LatencyStudy
from training_app.rollouts.models import RolloutBatch, Trajectory
from training_app.runs.models import TrainingCheckpoint, TrainingMetric, TrainingRun

__all__ = [
    "RolloutBatch", "Trajectory", "EvalCampaign", "CampaignEpisode", "TrainingRun", "TrainingMetric",
    "TrainingCheckpoint", "LatencyStudy", "TaskSetAudit", "AuditVerdict", "DegenerateScore",
]
