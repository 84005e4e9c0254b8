"""Settings of SandMLE Studio, read from environment variables only, with defaults that work on one machine."""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

import dj_database_url

from sandmle_web.env import envbool, envint, envlist, envstr
from sandmle_web.queues import Queue

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(envstr("SANDMLE_DATA_DIR", str(BASE_DIR / "data"))).resolve()
DATA_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = envbool("DEBUG", False)
_DEV_SECRET = "insecure-development-key-set-SECRET_KEY-in-production"
SECRET_KEY = envstr("SECRET_KEY", _DEV_SECRET)
# The development key is published with the source: anyone could forge signed cookies with it, so production
# (DEBUG off) refuses it outright; `check --deploy` reports it too (accounts.checks).
if "pytest" in sys.modules and SECRET_KEY == _DEV_SECRET:
    # The test suite runs with DEBUG off like production; it gets a fresh key per run, exported so the Celery
    # workers it starts as subprocesses get it too.
    SECRET_KEY = os.environ["SECRET_KEY"] = "test-run-" + secrets.token_urlsafe(48)
if not DEBUG and SECRET_KEY in ("", _DEV_SECRET):
    sys.exit("SECRET_KEY is unset or the published development key: set SECRET_KEY (DEBUG is off)")
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", [])
SITE_NAME = "SandMLE Studio"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and ReDoc files, served from our static files (no CDN)
    "django_celery_results",
    "accounts",
    "tasks_app",
    "training_app",
    "studio",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "sandmle_web.urls"
WSGI_APPLICATION = "sandmle_web.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.context_processors.roles",
                "sandmle_web.broker.job_queue",
            ],
            # Every page words statuses, scaffolds and scores the same way (score, status_word, field_name, ...).
            "builtins": ["studio.templatetags.studio_words"],
        },
    },
]

# SQLite by default "so one can just check out the code and it works"; DATABASE_URL switches to PostgreSQL.
_SQLITE_OPTIONS = {
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
}
if envstr("DATABASE_URL", ""):
    DATABASES = {"default": dj_database_url.parse(envstr("DATABASE_URL", ""), conn_max_age=60)}
    if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        DATABASES["default"]["OPTIONS"] = dict(_SQLITE_OPTIONS)
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": DATA_DIR / "studio.sqlite3",
            "OPTIONS": dict(_SQLITE_OPTIONS),
            "TEST": {"NAME": DATA_DIR / "test-studio.sqlite3"},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
# plotly.js as the installed plotly package ships it (served locally: the studio works offline), as vendor/plotly.min.js.
import plotly as _plotly  # noqa: E402

STATICFILES_DIRS.append(("vendor", Path(_plotly.__file__).parent / "package_data"))
# Hashed names, compressed copies and a manifest from collectstatic (sandmle_web/static_storage.py).
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "sandmle_web.static_storage.StudioStaticStorage"},
}

DATA_UPLOAD_MAX_MEMORY_SIZE = envint("SANDMLE_UPLOAD_MAX_BYTES", 20 * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE
# Task-set archives reviewers upload (streamed to disk, unpacked by a job under the extractor's own caps).
SANDMLE_ARCHIVE_UPLOAD_MAX_BYTES = envint("SANDMLE_ARCHIVE_UPLOAD_MAX_BYTES", 256 * 1024**2)
# What one user's imports may keep on disk, uploads waiting for their job included: a task's public and private files
# are tens of KB to a few MB, so this holds hundreds of real tasks and no unpacked bomb.
SANDMLE_IMPORT_QUOTA_BYTES = envint("SANDMLE_IMPORT_QUOTA_BYTES", 2 * 1024**3)

# Production hardening, on unless DEBUG; `manage.py check --deploy` passes with SECRET_KEY and ALLOWED_HOSTS set.
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^health/$"]  # load balancers probe over plain HTTP
# Any client can send X-Forwarded-Proto: trust it only when the admin says a proxy in front sets (and strips) it.
if envbool("SANDMLE_TRUSTED_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = envbool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = envbool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["accounts.permissions.IsViewer"],
    # JSON bodies nested past a depth are a 400, not a RecursionError (sandmle_web.parsers).
    "DEFAULT_PARSER_CLASSES": [
        "sandmle_web.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "sandmle_web.pagination.StudioPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "sandmle_web.api_lists.StrictOrderingFilter",  # an unknown ordering field is a 400, not ignored
    ],
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": envstr("SANDMLE_API_ANON_RATE", "60/minute"),
        "user": envstr("SANDMLE_API_USER_RATE", "3000/minute"),
    },
}

# The OpenAPI 3 schema (/api/schema/) and its docs (/api/docs/, /api/redoc/), signed-in users only like the rest.
SPECTACULAR_SETTINGS = {
    "TITLE": "SandMLE Studio API",
    "DESCRIPTION": "Seeds, synthesized tasks, review, task sets, rollouts, training runs and evaluation campaigns. "
    "Authenticate with `Authorization: Token <key>` (POST /api/token/ gives one) or a studio session.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["accounts.permissions.IsViewer"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,  # multipart uploads and JSON bodies get their own request components
    # One schema name per choice set that several endpoints share (otherwise suffixed by a hash).
    "ENUM_NAME_OVERRIDES": {
        "ScaffoldEnum": "training_app.models.RolloutBatch.Scaffold",
        "FeedbackEnum": "training_app.models.RolloutBatch.Feedback",
        "TrainingKindEnum": "training_app.models.TrainingRun.Kind",
        "JobStateEnum": "sandmle_web.jobs.JobState",
        "TaskStatusEnum": "tasks_app.models.SynthesizedTask.Status",
    },
}

# Failed sign-ins (page and /api/token/) allowed per account and per client address within the window.
SANDMLE_LOGIN_MAX_FAILURES_ACCOUNT = envint("SANDMLE_LOGIN_MAX_FAILURES_ACCOUNT", 10)
SANDMLE_LOGIN_MAX_FAILURES_CLIENT = envint("SANDMLE_LOGIN_MAX_FAILURES_CLIENT", 30)
SANDMLE_LOGIN_WINDOW_S = envint("SANDMLE_LOGIN_WINDOW_S", 900)

# Celery: kombu's filesystem transport under the data directory unless CELERY_BROKER_URL names Redis.
BROKER_DIR = DATA_DIR / "broker"
CELERY_BROKER_URL = envstr("CELERY_BROKER_URL", "filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    for _folder in ("queue", "processed", "control"):
        (BROKER_DIR / _folder).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
    }
else:
    # An unacked Redis message returns only after the visibility timeout: keep it above the longest task.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": envint("CELERY_VISIBILITY_TIMEOUT", 12 * 3600),
        # A page that enqueues while Redis is down answers at once ("saved, will start when the queue is back").
        "socket_connect_timeout": 2,
    }
CELERY_RESULT_BACKEND = "django-db"
CELERY_RESULT_EXTENDED = True
CELERY_TASK_DEFAULT_QUEUE = Queue.DEFAULT.value
# Rollouts default to the sandbox queue; a batch with a local checkpoint policy is sent to `gpu` explicitly.
CELERY_TASK_ROUTES = {"workers.rollouts.*": {"queue": Queue.SANDBOX.value}}
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TRACK_STARTED = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_IMPORTS = ["workers.system", "workers.synthesis", "workers.rollouts", "workers.evaluation", "workers.training",
                  "workers.latency", "workers.task_archives",
                  "workers.audits", "workers.frontier"]
# A worker that dies holding a message (SIGKILL, OOM) gives it back only after the visibility timeout; losing the
# Redis connection must not stop the tasks running meanwhile (their results go to the database, not the broker).
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
CELERY_BROKER_CONNECTION_TIMEOUT = envint("CELERY_BROKER_CONNECTION_TIMEOUT", 2)
# The sweep that takes up jobs whose worker died, and resends queued jobs whose message was lost (workers.system).
CELERY_BEAT_SCHEDULE = {
    "sweep-lost-jobs": {"task": "workers.system.sweep_lost_jobs", "schedule": float(envint("SANDMLE_JOB_SWEEP_S", 60))}
}

# A job row whose heartbeat is older than this while running is taken as lost (its worker died); a running job beats
# every JOB_HEARTBEAT_INTERVAL_S from a thread of its own. A lost job is queued again until it has been claimed
# JOB_MAX_ATTEMPTS times; then it fails with the reason ("worker lost 3 times; last heartbeat at ...").
JOB_HEARTBEAT_TIMEOUT_S = envint("SANDMLE_JOB_HEARTBEAT_TIMEOUT_S", 300)
JOB_HEARTBEAT_INTERVAL_S = envint("SANDMLE_JOB_HEARTBEAT_INTERVAL_S", max(1, JOB_HEARTBEAT_TIMEOUT_S // 10))
JOB_MAX_ATTEMPTS = envint("SANDMLE_JOB_MAX_ATTEMPTS", 3)

# The LLM behind optional LLM-backed synthesis stages and the rubric judge (any OpenAI-compatible endpoint).
SANDMLE_LLM_URL = envstr("SANDMLE_LLM_URL", "")
SANDMLE_LLM_MODEL = envstr("SANDMLE_LLM_MODEL", "")
SANDMLE_LLM_KEY_ENV = envstr("SANDMLE_LLM_KEY_ENV", "OPENAI_API_KEY")
# The only environment variables a synthesis run or a training run's judge may name as its key: a free choice would
# let a curator send the worker's SECRET_KEY or database password to an endpoint. Only admins see which are named.
SANDMLE_LLM_KEY_ENVS = envlist("SANDMLE_LLM_KEY_ENVS", [SANDMLE_LLM_KEY_ENV])
# The hosts any endpoint a user names may be on: synthesis LLMs, openai: policies (rollouts, campaigns, frontier runs),
# a training run's rubric judge and vLLM server (the key, prompts and transcripts go there); empty means only
# SANDMLE_LLM_URL's host (sandmle_web.llm_hosts).
SANDMLE_LLM_ALLOWED_HOSTS = envlist("SANDMLE_LLM_ALLOWED_HOSTS", [])
# Checkpoint folders the studio offers besides the data directory's training/ and models/ (training_app/shared/model_roots.py).
SANDMLE_MODEL_ROOTS = envlist("SANDMLE_MODEL_ROOTS", [])
# What one user's unfinished latency studies may keep in uploaded tables (training_app/latency/uploads.py).
SANDMLE_LATENCY_TABLE_QUOTA_BYTES = envint("SANDMLE_LATENCY_TABLE_QUOTA_BYTES", 2 << 30)

# Distinct reviewers whose approvals (in one review round) make a task approved (tasks_app.review.services).
SANDMLE_REVIEW_MIN_APPROVALS = max(1, envint("SANDMLE_REVIEW_MIN_APPROVALS", 1))
# Launching GRPO or SFT on a task set whose newest audit did not pass or does not cover how the run plays is refused
# (the gate, training_app/audits/services.py): RL optimises against every hole an audit did not try. SANDMLE_REQUIRE_AUDIT=0
# turns the refusal into a warning on the run, for local experiments on sets nobody will train a real policy on.
SANDMLE_REQUIRE_AUDIT = envbool("SANDMLE_REQUIRE_AUDIT", True)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": envstr("LOG_LEVEL", "INFO")},
}
