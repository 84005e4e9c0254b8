"""A task set belongs to whoever made it: another curator may not edit, retire or restore it (API and form POSTs
replayed by a hostile client get 403 and change nothing); its owner, reviewers and admins may; retiring is undone by
restoring; every change is a row of the set's history, on the set page and at /api/task-sets/<name>/history/."""

from __future__ import annotations

import itertools

import pytest

_serial = itertools.count()
SET_RETIRE_CANARY = "canary-set-retire-4be21d"


def _approved(users, count: int) -> list:
    from tasks_app.models import Seed, SynthesizedTask

    seed, _ = Seed.objects.get_or_create(name="owner-seed", defaults=dict(
        source="upload", target="y", task_type="binary", metric="auc", modality="tabular", n_rows=10, n_features=2))
    return SynthesizedTask.objects.bulk_create([
        SynthesizedTask(task_id=f"owned-{next(_serial)}", seed=seed, title="Owned task", status="approved",
                        reviewed_by=users["reviewer"], metric="roc_auc") for _ in range(count)])


@pytest.fixture
def other_curator(db):
    from accounts.roles import Role
    from accounts.services import user_create

    return user_create(username="curator-two", password="pw-curator-two", role=Role.CURATOR)


@pytest.fixture
def owned(users):
    """A set of two approved tasks made by the curator, and one more approved task outside it."""
    from tasks_app.task_sets.services import task_set_create

    tasks = _approved(users, 3)
    task_set = task_set_create(name="owned-set", task_ids=[task.task_id for task in tasks[:2]], user=users["curator"],
                               description="the owner's words")
    return task_set, tasks


def _api(user):
    from rest_framework.test import APIClient

    from accounts.services import user_token

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {user_token(user=user)}")
    return api


def _snapshot(task_set) -> tuple:
    task_set.refresh_from_db()
    return (task_set.name, task_set.description, task_set.retired_at,
            sorted(task_set.tasks.values_list("task_id", flat=True)), task_set.changes.count())


def test_another_curator_is_refused_by_the_api_and_nothing_changes(owned, other_curator):
    task_set, tasks = owned
    before = _snapshot(task_set)
    api = _api(other_curator)
    attempts = [
        api.patch("/api/task-sets/owned-set/", {"description": "hijacked"}, format="json"),
        api.patch("/api/task-sets/owned-set/", {"add_task_ids": [tasks[2].task_id]}, format="json"),
        api.patch("/api/task-sets/owned-set/", {"remove_task_ids": [tasks[0].task_id]}, format="json"),
        api.patch("/api/task-sets/owned-set/", {"name": "hijacked-set"}, format="json"),
        api.post("/api/task-sets/owned-set/retire/", {"reason": "mine now"}, format="json"),
    ]
    for response in attempts:
        assert response.status_code == 403, response.content
        assert "owner (curator)" in response.json()["detail"]
    assert _snapshot(task_set) == before
    # Nor may they restore a set its owner retired.
    from tasks_app.task_sets.services import task_set_retire

    task_set_retire(task_set=task_set, user=task_set.created_by)
    retired = _snapshot(task_set)
    assert api.post("/api/task-sets/owned-set/restore/").status_code == 403
    assert _snapshot(task_set) == retired and retired[2] is not None


def test_another_curator_replaying_the_set_forms_is_refused(owned, other_curator, client):
    task_set, tasks = owned
    before = _snapshot(task_set)
    client.force_login(other_curator)
    page = client.get("/task-sets/owned-set/").content.decode()
    assert 'id="set-owner-note"' in page and 'id="edit-set"' not in page and 'id="retire-set-form"' not in page
    assert 'id="clone-set-form"' in page  # cloning makes their own set: allowed
    edit = client.get("/task-sets/owned-set/edit/")
    assert edit.status_code == 403 and "owner (curator)" in edit.content.decode()
    for url, body in (("/task-sets/owned-set/edit/", {"name": "owned-set", "description": "hijacked",
                                                      "add_task_ids": tasks[2].task_id}),
                      ("/task-sets/owned-set/edit/", {"name": "owned-set", "remove_task_ids": [tasks[0].task_id]}),
                      ("/task-sets/owned-set/retire/", {"reason": "mine now"}),
                      ("/task-sets/owned-set/restore/", {})):
        response = client.post(url, body)
        assert response.status_code == 403, (url, response.status_code)
        assert "reviewers and admins may change it" in response.content.decode()
    assert _snapshot(task_set) == before


@pytest.mark.parametrize("role", ["curator", "reviewer", "admin"])
def test_the_owner_a_reviewer_and_an_admin_may_edit_retire_and_restore(owned, users, role):
    task_set, tasks = owned
    api = _api(users[role])
    edited = api.patch("/api/task-sets/owned-set/", {"description": f"edited by {role}",
                                                      "add_task_ids": [tasks[2].task_id]}, format="json")
    assert edited.status_code == 200, edited.content
    assert edited.json()["description"] == f"edited by {role}" and tasks[2].task_id in edited.json()["task_ids"]
    retired = api.post("/api/task-sets/owned-set/retire/", {"reason": "superseded"}, format="json")
    assert retired.status_code == 200 and retired.json()["retired_at"]
    restored = api.post("/api/task-sets/owned-set/restore/")
    assert restored.status_code == 200 and restored.json()["retired_at"] is None
    from tasks_app.task_sets.selectors import task_set_launch_names

    assert "owned-set" in task_set_launch_names()


def test_restore_and_retire_refuse_the_wrong_state_with_a_field_message(owned, users):
    api = _api(users["curator"])
    live = api.post("/api/task-sets/owned-set/restore/")
    assert live.status_code == 400 and "not retired" in live.json()["name"][0]
    too_long = api.post("/api/task-sets/owned-set/retire/", {"reason": "x" * 5001}, format="json")
    assert too_long.status_code == 400 and "reason" in too_long.json()
    assert api.post("/api/task-sets/owned-set/retire/").status_code == 200
    again = api.post("/api/task-sets/owned-set/retire/")
    assert again.status_code == 400 and "already retired" in again.json()["name"][0]
    edit = api.patch("/api/task-sets/owned-set/", {"description": "while retired"}, format="json")
    assert edit.status_code == 400 and "restore or clone" in edit.json()["name"][0]


def test_the_set_page_retires_and_restores_for_its_owner(owned, client_for):
    task_set, _ = owned
    client = client_for("curator")
    page = client.get("/task-sets/owned-set/").content.decode()
    assert 'id="retire-set-form"' in page and 'id="restore-set-form"' not in page
    assert client.post("/task-sets/owned-set/retire/", {"reason": "done with it"}).status_code == 302
    task_set.refresh_from_db()
    assert task_set.retired_at is not None
    page = client.get("/task-sets/owned-set/").content.decode()
    assert 'id="restore-set-form"' in page and 'id="retire-set-form"' not in page
    assert client.post("/task-sets/owned-set/restore/").status_code == 302
    task_set.refresh_from_db()
    assert task_set.retired_at is None


def test_every_change_is_in_the_history_on_the_api_and_the_page(owned, users, client_for):
    task_set, tasks = owned
    owner, reviewer = _api(users["curator"]), _api(users["reviewer"])
    assert owner.patch("/api/task-sets/owned-set/", {"description": "new words", "add_task_ids": [tasks[2].task_id]},
                       format="json").status_code == 200
    assert owner.patch("/api/task-sets/owned-set/", {"remove_task_ids": [tasks[0].task_id]},
                       format="json").status_code == 200
    assert owner.patch("/api/task-sets/owned-set/", {"description": "new words"}, format="json").status_code == 200
    assert reviewer.post("/api/task-sets/owned-set/retire/", {"reason": "a quiet reason"}, format="json").status_code == 200
    assert owner.post("/api/task-sets/owned-set/restore/").status_code == 200
    history = reviewer.get("/api/task-sets/owned-set/history/").json()
    assert [(row["what"], row["actor"]) for row in history] == [
        ("created", "curator"), ("described", "curator"), ("tasks_added", "curator"), ("tasks_removed", "curator"),
        ("retired", "reviewer"), ("restored", "curator")]  # the no-op edit wrote nothing
    assert history[0]["details"]["task_ids"] == sorted(task.task_id for task in tasks[:2])
    assert history[1]["details"] == {"from": "the owner's words", "to": "new words"}
    assert history[2]["details"] == {"task_ids": [tasks[2].task_id]}
    assert history[3]["details"] == {"task_ids": [tasks[0].task_id]}
    assert history[4]["details"] == {"reason": "a quiet reason"}
    page = client_for("viewer").get("/task-sets/owned-set/").content.decode()
    section = page[page.index('id="set-history"'):].lower()
    for text in ("created", "description changed", "tasks added", "tasks removed", "retired", "restored",
                 tasks[2].task_id, "new words"):
        assert text in section, text


def test_a_rename_and_a_clone_are_in_the_history(owned, users, client_for):
    client = client_for("curator")
    response = client.post("/task-sets/owned-set/edit/", {"name": "renamed-set", "description": "the owner's words"})
    assert response.status_code == 302
    history = _api(users["viewer"]).get("/api/task-sets/renamed-set/history/").json()
    assert history[-1] == {**history[-1], "what": "renamed", "details": {"from": "owned-set", "to": "renamed-set"}}
    assert client.post("/task-sets/renamed-set/clone/", {"name": "copied-set"}).status_code == 302
    copied = _api(users["viewer"]).get("/api/task-sets/copied-set/history/").json()
    assert [row["what"] for row in copied] == ["created"] and copied[0]["details"]["cloned_from"] == "renamed-set"


@pytest.mark.parametrize("role", ["viewer", "curator"])
def test_a_set_retire_reason_reaches_reviewers_only(owned, users, role, client_for):
    from tasks_app.task_sets.services import task_set_retire

    task_set, _ = owned
    task_set_retire(task_set=task_set, user=users["reviewer"], reason=f"rule quoted: {SET_RETIRE_CANARY}")
    seen = [client_for(role).get(url).content.decode() for url in ("/task-sets/owned-set/", "/task-sets/")]
    seen += [_api(users[role]).get(url).content.decode() for url in (
        "/api/task-sets/owned-set/history/", "/api/task-sets/owned-set/", "/api/task-sets/")]
    assert not [text for text in seen if SET_RETIRE_CANARY in text]
    history = _api(users[role]).get("/api/task-sets/owned-set/history/").json()
    assert history[-1]["what"] == "retired" and history[-1]["actor"] == "reviewer"
    assert SET_RETIRE_CANARY in client_for("reviewer").get("/task-sets/owned-set/").content.decode()
    assert SET_RETIRE_CANARY in _api(users["reviewer"]).get("/api/task-sets/owned-set/history/").content.decode()
