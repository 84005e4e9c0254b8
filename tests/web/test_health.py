"""The health endpoint reports the database, the broker and the workers."""


def test_health_reports_each_part(client, db):
    response = client.get("/health/?timeout=0.2")
    body = response.json()
    assert response.status_code == 200
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["broker"]["ok"] is True
    assert body["checks"]["workers"] == {"ok": False, "workers": []}  # no worker in a unit test
