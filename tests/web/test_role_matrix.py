"""The role × endpoint matrix, walked from the URL configuration: every route has a rule naming the least role for each
method it serves (viewer < curator < reviewer); below it a page or endpoint answers 403 and changes nothing, at or
above it the request is served; and no 200 a viewer or curator gets (pages, API, downloads, the OpenAPI schema)
holds a hidden rule, an answer or a reviewers-only comment. A new route without a rule fails here."""

from __future__ import annotations

import html
import itertools
from dataclasses import dataclass, fields

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, transaction

from accounts.roles import Role
from tests.web.role_matrix_studio import REVIEWERS_ONLY_NOTE, TURN_NOTE, Studio, build_studio
from tests.web.url_routes import Route, url_routes

V, C, R = Role.VIEWER, Role.CURATOR, Role.REVIEWER
MATRIX_ROLES = (V, C, R)  # admins hold every role; anonymous requests are tests/web/test_anonymous_access.py's


@dataclass(frozen=True)
class Rule:
    """The least role that may use each method of a route; None: the route does not serve that method."""

    get: Role | None = None
    post: Role | None = None
    put: Role | None = None
    patch: Role | None = None
    delete: Role | None = None

    def served(self) -> dict[str, Role]:
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}


READ = Rule(get=V)
READ_LAUNCH = Rule(get=V, post=C)  # lists where curators launch, job pages where their creator cancels
CANCEL = Rule(post=C)  # the job's creator (a curator here), reviewers and admins: test_hardening_job_cancel has the rest
REVIEW = Rule(post=R)
# Login, logout, health and token sign-in are open to anyone; a signed-in user of any role may use them.
OPEN_POST = Rule(get=V, post=V)
REVIEWER_ONLY = Rule(get=R)

RULES: dict[str, Rule] = {
    # the studio frame, accounts and the API's schema
    "home": READ, "job-progress": READ, "job-cancel": CANCEL,
    "login": OPEN_POST, "logout": Rule(post=V), "health": READ, "favicon": READ,
    "api-token": Rule(post=V, delete=V), "account-token": Rule(get=V, post=V),
    "api-schema": READ, "api-docs": READ, "api-redoc": READ,
    # the task side's pages
    "seed-list": READ_LAUNCH, "seed-detail": READ_LAUNCH, "synthesis-run-list": READ,
    "synthesis-run-detail": READ_LAUNCH, "task-list": READ, "task-detail": Rule(get=V, post=R), "task-image": READ,
    "task-regenerate": Rule(get=C, post=C), "task-set-list": READ_LAUNCH,
    "task-set-detail": READ, "task-set-edit": Rule(get=C, post=C), "task-set-clone": Rule(post=C),
    "task-set-retire": Rule(post=C), "task-set-restore": Rule(post=C),
    "review-queue": Rule(get=R, post=R), "review-saved-view-save": REVIEW, "review-saved-view-delete": REVIEW,
    "task-review-action": REVIEW, "comment-resolve": REVIEW, "trajectory-turn-comment": REVIEW,
    # the training side's pages and downloads
    "rollout-batch-list": READ_LAUNCH, "rollout-batch-detail": READ_LAUNCH, "rollout-batch-export": READ,
    "trajectory-compare": READ, "trajectory-detail": READ,
    "campaign-list": READ_LAUNCH, "campaign-detail": READ_LAUNCH, "campaign-episodes": READ,
    "campaign-episode-detail": READ, "campaign-episode-record": READ, "campaign-report-export": READ,
    "training-run-list": READ_LAUNCH, "training-run-detail": READ_LAUNCH, "training-run-metrics": READ,
    "training-step-trajectories": READ, "training-run-logs": READ, "training-step-groups": READ,
    "training-step-sample": READ, "training-successor-decide": REVIEW, "training-frontier-save": Rule(post=C),
    "training-run-compare": READ, "campaign-compare": READ,
    "latency-list": READ_LAUNCH, "latency-detail": READ_LAUNCH,
    "latency-result-export": READ,
    # task-set archives: the answers travel with them, so reviewers only
    "task-set-export": Rule(get=R, post=R), "task-set-export-detail": REVIEWER_ONLY,
    "task-set-export-download": REVIEWER_ONLY, "task-archive-import-list": Rule(get=R, post=R),
    "task-archive-import-detail": REVIEWER_ONLY,
    "api-task-set-exports": Rule(get=R, post=R), "api-task-set-export-detail": REVIEWER_ONLY,
    "api-task-set-export-archive": REVIEWER_ONLY, "api-task-archive-import-list": Rule(get=R, post=R),
    "api-task-archive-import-detail": REVIEWER_ONLY,
    # the task side's API
    "api-seed-list": READ_LAUNCH, "api-seed-detail": READ, "api-seed-dna": READ,
    "api-synthesis-run-list": READ_LAUNCH, "api-synthesis-run-detail": READ, "api-synthesis-run-cancel": CANCEL,
    "api-task-list": READ, "api-task-detail": READ, "api-task-dna": READ, "api-task-files": READ,
    "api-task-regenerate": Rule(post=C),
    "api-task-file": READ,  # private/ files: reviewers (VARIANTS)
    "api-task-set-list": READ_LAUNCH, "api-task-set-detail": Rule(get=V, patch=C), "api-task-set-clone": Rule(post=C),
    "api-task-set-retire": Rule(post=C), "api-task-set-restore": Rule(post=C), "api-task-set-history": READ,
    # the review API
    "api-review-queue": Rule(get=R), "api-review-bulk": REVIEW, "api-review-saved-views": Rule(get=R, post=R),
    "api-review-saved-view": Rule(delete=R), "api-task-reviews": Rule(get=R, post=R), "api-task-reopen": REVIEW, "api-task-retire": REVIEW,
    "api-task-assignment": Rule(get=R, post=R), "api-task-audit": READ, "api-task-threads": Rule(get=V, post=R),
    "api-comment-resolve": REVIEW,
    # the training side's API
    "api-rollout-batch-list": READ_LAUNCH, "api-rollout-batch-detail": READ, "api-rollout-batch-cancel": CANCEL,
    "api-trajectory-list": READ, "api-trajectories": READ, "api-trajectory-detail": READ,
    "api-campaign-list": READ_LAUNCH, "api-campaign-detail": READ, "api-campaign-cancel": CANCEL,
    "api-campaign-report": READ,
    "api-training-run-list": READ_LAUNCH, "api-training-run-detail": READ, "api-training-run-cancel": CANCEL,
    "api-training-run-metrics": READ, "api-training-run-environments": READ,
    "api-training-run-successor-decision": REVIEW, "api-training-run-frontier-set": Rule(post=C),
    "api-latency-study-list": READ_LAUNCH, "api-latency-study-detail": READ, "api-latency-study-cancel": CANCEL,
    # audits: the evidence is the whole episode and any answers a leak reached, so reviewers only
    "audit-list": READ_LAUNCH, "audit-detail": READ_LAUNCH, "audit-evidence": Rule(get=R),
    "api-audit-list": READ_LAUNCH, "api-audit-detail": READ, "api-audit-cancel": CANCEL,
    # frontier runs: a set re-levelled for a policy
    "frontier-launch": READ_LAUNCH, "frontier-run-detail": READ,
    "api-frontier-run-list": READ_LAUNCH, "api-frontier-run-detail": READ, "api-frontier-run-cancel": CANCEL,
}


def _training(route: Route) -> bool:
    return route.route.startswith(("training/", "api/training-runs/"))


def _frontier(route: Route) -> bool:
    return route.route.startswith(("frontier-runs/", "api/frontier-runs/"))


# Each URL parameter's sample, by name (a route may need a different object: see VARIANTS).
PARAMS = {
    "name": lambda s, route: s.task_set.name if "task-sets/" in route.route else s.seed.name,
    "run_id": lambda s, route: (s.training_run.id if _training(route) else s.frontier_run.id if _frontier(route)
                                else s.synthesis_run.id),
    "task_id": lambda s, route: s.pending.task_id,
    "batch_id": lambda s, route: s.batch.id,
    "trajectory_id": lambda s, route: s.trajectory.id,
    "turn": lambda s, route: 0,
    "line": lambda s, route: 0,
    "comment_id": lambda s, route: s.comment.id,
    "view_id": lambda s, route: s.saved_view.id,
    "campaign_id": lambda s, route: s.campaign.id,
    "episode_id": lambda s, route: s.episode.id,
    "study_id": lambda s, route: s.latency_study.id,
    "audit_id": lambda s, route: s.audit.id,
    "verdict_id": lambda s, route: s.audit_verdict.id,
    "step": lambda s, route: s.training_step,
    "path": lambda s, route: "public/train.csv",
    "tracker": lambda s, route: "tensorboard",
    "export_id": lambda s, route: s.task_set_export.id,
    "import_id": lambda s, route: s.archive_import.id,
}

# Routes asked more than one way: (parameters or "?query", rule) pairs; a rule of None keeps the route's own.
REVIEWER_READ = Rule(get=R)
# Jobs only reviewers start (archives carry answers): no curator is their creator, so none may cancel them.
REVIEWER_JOBS = {"tasks_app.tasksetexport", "tasks_app.taskarchiveimport"}
VARIANTS = {
    "api-task-file": lambda s: [({"path": path}, REVIEWER_READ if path.startswith("private/") else None)
                                for path in ("public/train.csv", "public/test.csv", "public/description.md",
                                             "public/sample_submission.csv", "private/answers.csv",
                                             "private/rule.json", "private/grading.json")],
    "api-task-files": lambda s: [({"task_id": task.task_id}, None) for task in (s.pending, s.image_task)],
    "api-task-detail": lambda s: [({"task_id": task.task_id}, None) for task in (s.pending, s.image_task)],
    "api-task-dna": lambda s: [({"task_id": task.task_id}, None) for task in (s.pending, s.image_task)],
    "api-synthesis-run-detail": lambda s: [({"run_id": run.id}, None) for run in (s.synthesis_run, s.regeneration_run)],
    "synthesis-run-detail": lambda s: [({"run_id": run.id}, None) for run in (s.synthesis_run, s.regeneration_run)],
    "task-detail": lambda s: [({"task_id": task.task_id}, None) for task in (s.pending, s.approved, s.image_task)],
    "task-image": lambda s: [({"task_id": s.image_task.task_id, "name": s.image_name}, None)],
    "trajectory-compare": lambda s: [({"task_id": s.approved.task_id}, None)],
    "campaign-report-export": lambda s: [({"fmt": "csv"}, None), ({"fmt": "json"}, None)],
    "job-progress": lambda s: [({"label": label, "job_id": s.job(label).id}, None) for label in _job_labels()],
    "job-cancel": lambda s: [({"label": label, "job_id": s.job(label).id}, Rule(post=R) if label in REVIEWER_JOBS
                              else None) for label in _job_labels()],
    "task-review-action": lambda s: [({"action": action}, None) for action in ("decide", "reopen", "retire", "assign",
                                                                                "comment")],
    "health": lambda s: [({"?": "timeout=0.05"}, None)],  # no worker answers the ping here: do not wait a second
    "campaign-compare": lambda s: [({"?": f"campaigns={s.campaign.id}&campaigns={s.campaign.id}"}, None)],
    "training-run-compare": lambda s: [({"?": f"runs={s.training_run.id}&runs={s.training_run.id}"}, None)],
    # Searches and filters a viewer might use to ask for a hidden value by name.
    "task-list": lambda s: [({}, None), ({"?": f"rule_family={s.pending.rule_family}&q={s.pending.rule_family}"}, None)],
    "api-task-list": lambda s: [({}, None), ({"?": f"rule_family={s.pending.rule_family}"}, None)],
    "api-task-threads": lambda s: [({}, None), ({"task_id": s.approved.task_id, "?": f"trajectory={s.trajectory.id}"},
                                                None)],
    "api-trajectories": lambda s: [({}, None), ({"?": f"task={s.approved.task_id}"}, None)],
}


def _job_labels() -> list[str]:
    from studio.selectors import job_models

    return sorted(job_models())


def _seed_csv() -> SimpleUploadedFile:
    rows = "\n".join(f"{i},{i % 7},{'yes' if i % 3 else 'no'}" for i in range(80))
    return SimpleUploadedFile("matrix.csv", f"size,age,sold\n{rows}\n".encode(), content_type="text/csv")


_names = itertools.count()


def _archive_upload() -> SimpleUploadedFile:
    """A small .tar.gz (its content is the import job's to judge; the request only stores it)."""
    import io
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        info = tarfile.TarInfo("set/readme.txt")
        info.size = 2
        tar.addfile(info, io.BytesIO(b"hi"))
    return SimpleUploadedFile("matrix.tar.gz", buffer.getvalue(), content_type="application/gzip")


def _fresh(prefix: str) -> str:
    return f"{prefix}-{next(_names)}"


# A body valid enough for every check before the permission check and, mostly, for the action itself.
BODIES = {
    ("login", "post"): lambda s, role, kw: {"username": role.group_name, "password": f"pw-{role.group_name}"},
    ("api-token", "post"): lambda s, role, kw: {"username": role.group_name, "password": f"pw-{role.group_name}"},
    ("account-token", "post"): lambda s, role, kw: {"action": "rotate"},
    ("seed-list", "post"): lambda s, role, kw: {"name": _fresh("matrix-seed"), "file": _seed_csv(), "target": "sold"},
    ("api-seed-list", "post"): lambda s, role, kw: {"name": _fresh("matrix-seed"), "file": _seed_csv(),
                                                    "target": "sold"},
    ("seed-detail", "post"): lambda s, role, kw: {"count": 1, "rng": 5},
    ("api-synthesis-run-list", "post"): lambda s, role, kw: {"seed": s.seed.name, "count": 1, "rng": 5, "llm_url": ""},
    ("task-detail", "post"): lambda s, role, kw: {"verdict": "approve", "body": "matrix approval"},
    ("task-regenerate", "post"): lambda s, role, kw: {"rng": "7"},
    ("api-task-regenerate", "post"): lambda s, role, kw: {"rng": 1000 + next(_names)},
    ("review-queue", "post"): lambda s, role, kw: {"task_ids": [s.pending.task_id], "action": "approve",
                                                   "reason": "matrix bulk"},
    ("review-saved-view-save", "post"): lambda s, role, kw: {"name": "matrix saved", "status": "pending_review"},
    ("task-review-action", "post"): lambda s, role, kw: {
        "decide": {"verdict": "approve", "reason": "matrix"}, "reopen": {"reason": "matrix"}, "retire": {"reason": "matrix"},
        "assign": {"assignee": "reviewer"}, "comment": {"body": "matrix comment"}}[kw["action"]],
    ("comment-resolve", "post"): lambda s, role, kw: {"resolved": "1"},
    ("trajectory-turn-comment", "post"): lambda s, role, kw: {"body": "matrix turn comment"},
    ("task-set-list", "post"): lambda s, role, kw: {"name": _fresh("matrix-set"), "task_ids": [s.approved.task_id]},
    ("rollout-batch-list", "post"): lambda s, role, kw: {"task_set": s.task_set.name, "scaffold": "react",
                                                         "policy": "baseline", "samples": 1, "concurrency": 1,
                                                         "feedback": "score", "max_turns": 2},
    ("campaign-list", "post"): lambda s, role, kw: {"task_set": s.task_set.name, "policies": "baseline",
                                                    "scaffolds": ["react"], "seeds": 1, "baseline": "",
                                                    "feedback": "score", "max_turns": 3},
    ("training-run-list", "post"): lambda s, role, kw: {
        "task_set": s.task_set.name, "kind": "grpo", "model": s.training_run.config["model"], "steps": 1, "group_size": 2,
        "tasks_per_step": 1, "learning_rate": 1e-4, "reward": "dense", "max_turns": 1, "max_tokens": 8,
        "lora_r": "", "save_every": 1},
    ("latency-list", "post"): lambda s, role, kw: {"task": s.approved.task_id, "full_rows": 3000, "seeds": 1,
                                                   "pipelines": ["linear"], "name": "matrix"},
    ("task-set-edit", "post"): lambda s, role, kw: {"name": s.task_set.name, "description": "matrix edit"},
    ("task-set-clone", "post"): lambda s, role, kw: {"name": _fresh("matrix-clone")},
    ("api-task-set-detail", "patch"): lambda s, role, kw: {"description": "matrix edit"},
    ("api-task-set-clone", "post"): lambda s, role, kw: {"name": _fresh("matrix-clone")},
    ("api-task-retire", "post"): lambda s, role, kw: {"reason": "matrix"},
    ("audit-list", "post"): lambda s, role, kw: {"task_set": s.task_set.name, "scaffolds": ["react"]},
    ("api-task-set-list", "post"): lambda s, role, kw: {"name": _fresh("matrix-set"), "task_ids": [s.approved.task_id]},
    ("task-set-export", "post"): lambda s, role, kw: {"format": "mlebench"},
    ("api-task-set-exports", "post"): lambda s, role, kw: {"format": "mlebench"},
    ("task-archive-import-list", "post"): lambda s, role, kw: {"file": _archive_upload(), "format": "bundle"},
    ("api-task-archive-import-list", "post"): lambda s, role, kw: {"file": _archive_upload(), "format": "bundle"},
    ("api-review-bulk", "post"): lambda s, role, kw: {"task_ids": [s.pending.task_id], "action": "approve",
                                                      "reason": "matrix bulk"},
    ("api-review-saved-views", "post"): lambda s, role, kw: {"name": "matrix api view",
                                                             "filters": {"status": "pending_review"}},
    ("api-task-reviews", "post"): lambda s, role, kw: {"verdict": "approve", "reason": "matrix"},
    ("api-task-reopen", "post"): lambda s, role, kw: {"reason": "matrix"},
    ("api-task-assignment", "post"): lambda s, role, kw: {"assignee": "reviewer"},
    ("api-task-threads", "post"): lambda s, role, kw: {"body": "matrix api comment"},
    ("api-comment-resolve", "post"): lambda s, role, kw: {"resolved": True},
    ("api-rollout-batch-list", "post"): lambda s, role, kw: {"task_set": s.task_set.name, "scaffold": "react",
                                                             "samples": 1, "max_turns": 2},
    ("api-campaign-list", "post"): lambda s, role, kw: {"task_set": s.task_set.name, "policies": ["baseline"],
                                                        "scaffolds": ["react"], "seeds": 1, "max_turns": 3},
    ("api-training-run-list", "post"): lambda s, role, kw: {
        "task_set": s.task_set.name, "kind": "grpo", "model": s.training_run.config["model"], "steps": 1, "group_size": 2,
        "tasks_per_step": 1, "learning_rate": 1e-4, "reward": "dense", "max_turns": 1, "max_tokens": 8},
    ("api-latency-study-list", "post"): lambda s, role, kw: {"task": s.approved.task_id, "full_rows": 3000,
                                                             "seeds": 1, "pipelines": ["linear"]},
    ("api-audit-list", "post"): lambda s, role, kw: {"task_set": s.task_set.name, "scaffolds": ["react"],
                                                     "attacks": ["submission_bom"]},
    ("frontier-launch", "post"): lambda s, role, kw: {"policy": "baseline", "samples": 1, "band_low": 0.2,
                                                      "band_high": 0.8, "scaffold": "react"},
    ("api-frontier-run-list", "post"): lambda s, role, kw: {"task_set": s.task_set.name, "policy": "baseline",
                                                            "samples": 1},
}


def test_every_route_has_a_rule_and_every_rule_a_route():
    routes = url_routes()
    unnamed = [route.route for route in routes if not route.name]
    names = {route.name for route in routes}
    missing = sorted(f"{route.name} ({route.route})" for route in routes if route.name and route.name not in RULES)
    stale = sorted(set(RULES) - names)
    stale_extras = sorted({name for name in VARIANTS if name not in names}
                          | {name for name, _ in BODIES if name not in names})
    # A REST framework view lists its methods: each one it serves needs a rule, and each rule a handler.
    api_mismatch = sorted(f"{route.name}: serves {sorted(route.api_methods)}, rule {sorted(RULES[route.name].served())}"
                          for route in routes if route.api_view and route.name in RULES
                          and route.api_methods != set(RULES[route.name].served()))
    unknown_parameters = sorted({f"{route.name}: <{parameter}>" for route in routes for parameter in route.parameters
                                 if parameter not in PARAMS and not _varied(route.name, parameter)})
    assert (unnamed, missing, stale, stale_extras, api_mismatch, unknown_parameters) == ([], [], [], [], [], []), (
        "routes without a name, routes without a rule in RULES, rules for routes that are gone, VARIANTS/BODIES for "
        "routes that are gone, API methods without a rule, parameters without a sample")


_VARIED = {"campaign-report-export": {"fmt"}, "job-progress": {"label", "job_id"},
           "job-cancel": {"label", "job_id"}, "task-review-action": {"action"}}


def _varied(name: str, parameter: str) -> bool:
    return parameter in _VARIED.get(name, set())


# --- the walk ---------------------------------------------------------------------------------------------------


def _state() -> list:
    """Every row of the studio's own tables (many-to-many ones too): a refused request must leave them as they were.

    Read as raw rows: decoding each JSON column through the ORM made this most of the walk's time."""
    tables = sorted({model._meta.db_table for model in apps.get_models(include_auto_created=True)
                     if model._meta.app_label in ("tasks_app", "training_app", "accounts", "auth", "authtoken")})
    with connection.cursor() as cursor:
        rows = []
        for table in tables:
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)} ORDER BY 1")
            rows.append((table, cursor.fetchall()))
    return rows


def _body_text(response) -> str:
    # Reading a streamed body closes it through the test client's wrapper; a plain one the client closed already.
    content = b"".join(response.streaming_content) if getattr(response, "streaming", False) else response.content
    text = content.decode("utf-8", "replace")
    # A secret escaped for HTML or inside a JSON string is still a secret.
    return "\n".join([text, html.unescape(text), text.replace("\\n", "\n").replace('\\"', '"')])


class Walk:
    def __init__(self, *, studio: Studio, users, page_client, api_client):
        self.studio, self.users = studio, users
        self.page_clients = {role: page_client(role) for role in MATRIX_ROLES}
        self.api_clients = {role: api_client(role) for role in MATRIX_ROLES}
        self.failures: list[str] = []
        self.requests = 0
        self.seen_by_reviewers: set[str] = set()  # the search finds what it looks for: reviewers do see these

    def concrete(self, route: Route) -> list[tuple[str, dict, Rule]]:
        variants = VARIANTS[route.name](self.studio) if route.name in VARIANTS else [({}, None)]
        urls = []
        for overrides, rule in variants:
            values = {name: PARAMS[name](self.studio, route) for name in route.parameters if name not in overrides}
            values |= {name: value for name, value in overrides.items() if name != "?"}
            query = f"?{overrides['?']}" if "?" in overrides else ""
            urls.append((route.url(values) + query, values, rule or RULES[route.name]))
        return urls

    def send(self, route: Route, url: str, method: str, role: Role, values: dict):
        body = BODIES.get((route.name, method), lambda s, r, kw: {})(self.studio, role, values)
        if route.api_view:
            client = self.api_clients[role]
            has_file = any(isinstance(value, SimpleUploadedFile) for value in body.values())
            kwargs = {"format": "multipart" if has_file else "json"} if method != "get" else {}
            return getattr(client, method)(url, body or None, **kwargs)
        client = self.page_clients[role]
        if method == "get":
            return client.get(url)
        return getattr(client, method)(url, body) if method == "post" else getattr(client, method)(url)

    def check(self, route: Route, url: str, values: dict, method: str, role: Role, minimum: Role | None):
        """One request, rolled back afterwards so that every request meets the same studio."""
        self.requests += 1
        where = f"{method.upper()} {url} as {role.group_name}"
        refused = minimum is not None and role < minimum
        watch = method != "get" and (refused or minimum is None)
        try:
            with transaction.atomic():
                before = _state() if watch else None
                response = self.send(route, url, method, role, values)
                changed = watch and _state() != before
                transaction.set_rollback(True)
        except Exception as error:  # the test client re-raises a view's exception: that would be a 500
            self.failures.append(f"{where}: raised {type(error).__name__}: {error}")
            return
        finally:
            self._relogin_if_signed_out(route, role)
        code = response.status_code
        # Signing out sends one to the login page: that is the logout page serving its user.
        to_login = code == 302 and "/login/" in response.get("Location", "") and route.name != "logout"
        if code >= 500:
            self.failures.append(f"{where}: {code}")
        elif changed:
            self.failures.append(f"{where}: {'refused' if refused else 'not served'} ({code}) but changed rows")
        elif minimum is None and method == "get" and code not in (403, 405):
            self.failures.append(f"{where}: serves GET ({code}) without a rule for it")
        elif refused and code != 403:
            self.failures.append(f"{where}: expected 403 below {minimum.group_name}, got {code}")
        elif minimum is not None and not refused and (code in (401, 403, 404) or to_login):
            self.failures.append(f"{where}: allowed from {minimum.group_name} but got {code}")
        if code == 200:
            text = _body_text(response)
            shown = [secret for secret in self.studio.secrets if secret in text]
            if role < R and shown:
                self.failures.append(f"{where}: shows what only reviewers see: {[secret[:40] for secret in shown]}")
            elif role == R:
                self.seen_by_reviewers.update(shown)

    def _relogin_if_signed_out(self, route: Route, role: Role):
        # Logging in or out replaces the session, whose row the rollback then removes: sign the client in again.
        if route.name in ("login", "logout"):
            self.page_clients[role].force_login(self.users[role.group_name])

    def walk(self, route: Route):
        for url, values, rule in self.concrete(route):
            served = rule.served()
            methods = list(served)
            if not route.api_view:  # a page may ignore a method it does not serve: ask it, and watch the rows
                methods += [method for method in ("get", "post") if method not in served]
            for method, role in itertools.product(methods, MATRIX_ROLES):
                self.check(route, url, values, method, role, served.get(method))


@pytest.fixture
def studio(users, stored_tasks, task_set, finished_batch, iris_results, tmp_path, django_capture_on_commit_callbacks):
    return build_studio(users=users, stored_tasks=stored_tasks, task_set=task_set, batch=finished_batch,
                        iris_results=iris_results, out_dir=tmp_path, capture=django_capture_on_commit_callbacks)


def test_every_role_gets_what_its_rule_says_and_no_hidden_value(studio, users, api_for, settings):
    from django.test import Client

    settings.SANDMLE_REVIEW_MIN_APPROVALS = 1

    def page_client(role: Role) -> Client:
        client = Client()
        client.force_login(users[role.group_name])
        return client

    walk = Walk(studio=studio, users=users, page_client=page_client,
                api_client=lambda role: api_for(role.group_name))
    assert len(studio.secrets) > 10
    for route in url_routes():
        if route.name in RULES:  # a route without a rule fails the test above
            walk.walk(route)
    assert walk.requests > 300
    assert walk.failures == [], "\n".join(walk.failures)
    assert {studio.pending.rule_family, REVIEWERS_ONLY_NOTE, TURN_NOTE} <= walk.seen_by_reviewers
    assert len(walk.seen_by_reviewers) >= len(studio.secrets) // 2, set(studio.secrets) - walk.seen_by_reviewers
