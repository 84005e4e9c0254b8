"""What every scaffold shares: the episode context (sandbox, policy, feedback, budgets) and the turn record."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sandmle.agents.policies.base import Policy, PolicyReply, SamplingParams
from sandmle.agents.scaffolds.replies import split_thinking
from sandmle.sandbox.host_files import EpisodeDir, RefusedFile

# score_answers: SandMLE's released Score tool, graded against the real answers, the reward taken from its last
# valid output (the agent locks in what it saw); its results "saw test scores". score grades a public split.
FEEDBACK_MODES = ("none", "validate", "score", "score_answers")
SCORING_FEEDBACK = ("score", "score_answers")
# What an evaluation may give its agents: never the real answers' scores (a measurement must stay held out).
EVALUATION_FEEDBACK = tuple(mode for mode in FEEDBACK_MODES if mode != "score_answers")
SUBMISSION_NAME = "submission.csv"
NODES_DIR = ".nodes"
# No ML program needs deeper directories; the sandbox's recursive listing breaks near 1,000.
MAX_TREE_DEPTH = 64


@dataclass
class Turn:
    """One policy reply or one tool step; policy turns carry their token record."""

    role: str
    kind: str
    text: str = ""
    thinking: str = ""
    code: str = ""
    observation: str = ""
    step: dict[str, Any] | None = None
    well_formed: bool = True
    started_s: float = 0.0
    wall_s: float = 0.0
    prompt_ids: list[int] | None = None
    completion_ids: list[int] | None = None
    logprobs: list[float] | None = None
    completion_mask: list[int] | None = None  # the reply's own mask (a reply menu's forced tokens are 0)
    messages: list[dict] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class EpisodeBudgetExceeded(Exception):
    """Raised inside a scaffold when the episode's time budget is spent."""


class EpisodeContext:
    """The tools a scaffold may use in one episode, with the turn log the runner turns into a Trajectory."""

    def __init__(
        self,
        *,
        task_dir: Path,
        sandbox: Any,
        policy: Policy,
        sampling: SamplingParams,
        feedback: str = "none",
        max_turns: int = 15,
        time_budget_s: float = 900.0,
        context_tokens: int = 32768,
        options: dict[str, Any] | None = None,
    ) -> None:
        self.task_dir = Path(task_dir)
        self.sandbox = sandbox
        self.policy = policy
        self.sampling = sampling
        self.feedback = feedback
        self.max_turns = max_turns
        self.time_budget_s = time_budget_s
        self.context_tokens = context_tokens
        self.options = options or {}
        self.turns: list[Turn] = []
        self.started = time.monotonic()
        self.workdir = Path(sandbox.workdir) if hasattr(sandbox, "workdir") else None
        # Every host-side access to the agent's files goes through this: no link is ever followed.
        self.files = EpisodeDir(self.workdir) if self.workdir is not None else None
        self.last_refusal: str | None = None
        # Each report a scoring tool showed the agent, in order (score_answers: the reward reads the last valid one).
        self.score_reports: list[Any] = []
        # Which file the episode is graded on and why (each scaffold follows its original's rule).
        self.submission_choice: dict[str, Any] = {"rule": "final_file", "reason": "the file on disk at the end"}

    @property
    def description(self) -> str:
        return (self.task_dir / "public" / "description.md").read_text()

    @property
    def file_listing(self) -> str:
        public = self.task_dir / "public"
        names = sorted(p.relative_to(public).as_posix() for p in public.iterdir())
        images = public / "images"
        if images.is_dir():
            count = sum(1 for _ in images.iterdir())
            names = [n for n in names if n != "images"] + [f"images/ ({count} files)"]
        return "\n".join(f"/public/{name}" for name in names)

    @property
    def task_id(self) -> str:
        import json

        try:
            return str(json.loads((self.task_dir / "task.json").read_text()).get("task_id", self.task_dir.name))
        except (OSError, ValueError, AttributeError):
            return self.task_dir.name

    @property
    def step_timeout_s(self) -> float:
        limits = getattr(self.sandbox, "limits", None)
        return float(getattr(limits, "timeout_s", 60.0))

    def steps_left(self, done: int) -> int:
        return max(self.max_turns - done, 0)

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def time_left(self) -> float:
        return self.time_budget_s - self.elapsed()

    def count_tokens(self, text: str) -> int:
        counter = getattr(self.policy, "count_tokens", None)
        # Without a tokenizer, four characters a token is the usual estimate for English and code.
        return counter(text) if counter else len(text) // 4 + 1

    def ask(self, messages: list[dict], *, reply_format: str, kind: str = "reply") -> tuple[PolicyReply, Turn]:
        """One policy call, logged as a policy turn with its token ids and logprobs."""
        if self.time_left() <= 0:
            raise EpisodeBudgetExceeded()
        sampling = SamplingParams(**{**self.sampling.to_dict(), "reply_format": reply_format})
        if sampling.ead and sampling.ead_scope == "episode":  # the annealing schedule runs on over the episode
            sampling.ead_offset = sum(len(turn.completion_ids or []) for turn in self.turns if turn.role == "assistant")
        started = self.elapsed()
        reply = self.policy.generate(messages, sampling=sampling)
        turn = Turn(
            role="assistant",
            kind=kind,
            text=reply.text,
            thinking=split_thinking(reply.text)[0],
            started_s=started,
            wall_s=self.elapsed() - started,
            prompt_ids=reply.prompt_ids,
            completion_ids=reply.completion_ids,
            logprobs=reply.logprobs,
            completion_mask=reply.completion_mask,
            messages=[dict(m) for m in messages] if self.options.get("record_messages", True) else None,
            extra={"finish_reason": reply.finish_reason, "usage": reply.usage},
        )
        self.turns.append(turn)
        return reply, turn

    def choose_submission(self, rule: str, reason: str, kept: Path | None, **details: Any) -> None:
        """Puts the chosen kept file (None: no submission) at submission.csv and records the choice."""
        self.files.remove(SUBMISSION_NAME)
        if kept is not None:
            self.restore_submission(kept)
        self.submission_choice = {"rule": rule, "reason": reason,
                                  "file": Path(kept).name if kept is not None else None, **details}

    def run_code(self, code: str, *, kind: str = "python") -> Turn:
        """Runs code in the sandbox and logs the tool turn; the observation is what the agent sees.

        After the step, links that could lead outside the working directory are removed and the step is told so.
        """
        started = self.elapsed()
        try:
            step = self.sandbox.run_python(code).to_dict()
        except RecursionError:
            # The sandbox's own listing of the directory is recursive; a tree this deep is pruned so the episode goes on.
            step = {"exit_code": None, "termination": "error", "wall_s": self.elapsed() - started, "cpu_s": 0.0,
                    "stdout": "", "stderr": self._prune_deep_tree(), "files_changed": []}
        removed = self.files.sweep_links() if self.files is not None else []
        if removed:
            step["stderr"] = (step.get("stderr") or "") + (
                f"\n[sandbox: removed {len(removed)} symbolic link(s) that could point outside /workdir: "
                + ", ".join(removed[:10]) + "]")
        turn = Turn(role="tool", kind=kind, code=code, observation=format_step(step), step=step,
                    started_s=started, wall_s=self.elapsed() - started)
        self.turns.append(turn)
        return turn

    def _prune_deep_tree(self) -> str:
        too_deep = sorted({entry.relative.split("/")[0] for entry in self.files.walk()
                           if entry.relative.count("/") >= MAX_TREE_DEPTH})
        for top in too_deep:
            self.files.remove(top)
        return (f"[sandbox: directories nested more than {MAX_TREE_DEPTH} levels deep cannot be kept; "
                f"removed {', '.join(too_deep[:10]) or 'nothing'}]")

    def tool_note(self, kind: str, observation: str, *, well_formed: bool = True) -> Turn:
        turn = Turn(role="tool", kind=kind, observation=observation, well_formed=well_formed, started_s=self.elapsed())
        self.turns.append(turn)
        return turn

    @property
    def submission_path(self) -> Path:
        return self.workdir / "submission.csv"

    def submission_exists(self) -> bool:
        return self.files.exists(SUBMISSION_NAME)

    def check_submission(self, mode: str) -> str:
        """The feedback text for "validate" or "score" on the public split; "none" gives no feedback."""
        from sandmle.tasks import grading

        if mode == "none" or self.feedback == "none":
            return "Feedback is not available in this run."
        if mode == "score" and self.feedback not in SCORING_FEEDBACK:
            return "Scoring is not available in this run; only validation."
        if not self.submission_exists():
            return "No submission found at /workdir/submission.csv."
        if mode == "validate":
            errors = grading.validate_submission(self.task_dir, self.submission_path, split="public",
                                                 episode_dir=self.workdir)
            return "Submission is valid." if not errors else "Submission is invalid:\n" + "\n".join(errors)
        report = self.score_submission()
        return grading.feedback_text(report, mode)

    @property
    def score_split(self) -> str:
        """The answers a scoring tool grades against: the real ones under score_answers, else the public split."""
        return "private" if self.feedback == "score_answers" else "public"

    def score_submission(self) -> Any:
        """The submission graded for the agent to see, on score_split; the report is kept in score_reports."""
        from sandmle.tasks import grading

        report = grading.grade_submission(self.task_dir, self.submission_path, split=self.score_split,
                                          episode_dir=self.workdir)
        self.score_reports.append(report)
        return report

    def _byte_cap(self) -> int:
        from sandmle.tasks import grading

        spec = grading.load_grading(self.task_dir)
        return grading.submission_byte_cap(spec, grading.answer_row_count(self.task_dir))

    def keep_submission(self, name: str) -> Path | None:
        """Copies the current submission aside (tree search keeps one per node); None if there is none or it is refused.

        A refusal is logged as a tool note and kept in `last_refusal` for the node's output.
        """
        self.last_refusal = None
        if not self.submission_exists():
            return None
        kept = f"{NODES_DIR}/{name}.csv"
        try:
            self.files.copy(SUBMISSION_NAME, kept, max_bytes=self._byte_cap())
        except RefusedFile as refusal:
            self.last_refusal = f"The submission was not kept: {refusal}."
            self.tool_note("refused_file", self.last_refusal)
            return None
        return self.workdir / kept

    def restore_submission(self, kept: Path | None) -> None:
        if kept is None:
            return
        try:
            self.files.copy(Path(kept).relative_to(self.workdir), SUBMISSION_NAME, max_bytes=self._byte_cap())
        except (RefusedFile, ValueError) as refusal:
            self.tool_note("refused_file", f"The kept submission was not restored: {refusal}.")


def format_step(step: dict[str, Any]) -> str:
    """The observation text of a sandbox step: its output, and why it ended when it did not end normally."""
    parts = []
    if step.get("stdout"):
        parts.append(step["stdout"].rstrip())
    if step.get("stderr"):
        parts.append("[stderr]\n" + step["stderr"].rstrip())
    termination = step.get("termination", "ok")
    if termination == "timeout":
        parts.append(f"[the step was stopped after {step.get('wall_s', 0):.1f}s: time limit reached]")
    elif termination == "memory":
        parts.append("[the step was stopped: memory limit reached]")
    elif termination != "ok":
        parts.append(f"[exit code {step.get('exit_code')}, {termination}]")
    if step.get("files_changed"):
        parts.append("[files changed: " + ", ".join(step["files_changed"][:20]) + "]")
    return "\n".join(parts) or "[no output]"
