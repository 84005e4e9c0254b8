"""What a result cannot tell, said where it is read (issue 48): groups without reward spread under a scheme (GRPO on
them would learn nothing; the scripted baseline sampled G > 1 times is the usual cause), a table at 1.000 in every
cell (it cannot tell scaffolds apart), and one count of turns and stored episodes on a campaign's pages."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def baseline_campaign(users, task_set, django_capture_on_commit_callbacks):
    """The scripted baseline under ReAct and AIDE, two seeds each, run by the real engine."""
    from training_app.campaigns import services as campaign_services

    with django_capture_on_commit_callbacks(execute=False):
        campaign = campaign_services.campaign_create(
            task_set=task_set, policies=["baseline"], scaffolds=["react", "aide"], seeds=2, max_turns=3,
            scaffold_options={"aide": {"num_drafts": 1}}, user=users["curator"], name="ceiling")
    assert campaign_services.campaign_execute(campaign_id=campaign.id, worker="test") is True
    campaign.refresh_from_db()
    return campaign


def _flat_schemes(comparison: dict) -> list[str]:
    return [row["name"] for row in comparison["schemes"] if row["zero_spread_share"] == 1.0]


def test_flat_groups_and_a_solved_table_are_flagged(login_as, live_server, finished_batch, baseline_campaign, shot):
    batch, campaign = finished_batch, baseline_campaign
    page = login_as("viewer")

    # A G=2 batch of the baseline: the sparse reward (gold or nothing) is flat in every group on these tasks.
    flat = _flat_schemes(batch.summary["reward_schemes"])
    assert "sparse" in flat and "dense" not in flat
    page.goto(f"{live_server.url}/rollouts/{batch.id}/")
    banner = page.locator("#no-spread")
    assert banner.is_visible()
    assert f"no spread under the {' and '.join(flat)} reward" in banner.inner_text()
    assert "scripted program" in banner.inner_text()
    shot(page, "batch-no-spread")

    # The campaign: every cell's valid rate is 1.000 ± 0.000, which tells no scaffold from another.
    assert {c["metrics"]["valid_rate"]["mean"] for c in campaign.report["cells"]} == {1.0}
    page.goto(f"{live_server.url}/campaigns/{campaign.id}/?metric=valid_rate")
    warnings = page.locator(".result-warning").all_inner_texts()
    assert any(text.startswith("valid_rate is 1.000 in every cell: at this ceiling") for text in warnings), warnings
    assert any("no spread under the sparse reward" in text for text in warnings), warnings
    # One count of episodes: the progress line and the summary say the same thing in the same words.
    stored = page.locator("#campaign-stored").inner_text()
    assert stored == f"{campaign.total_episodes} of {campaign.total_episodes} episodes stored"
    assert stored in page.locator(".job-progress [data-field=message]").inner_text()
    assert "at most 3 turns each" in page.locator("section.card").first.inner_text()
    shot(page, "campaign-ceiling")

    # The episode list and an episode count turns as the form's max turns bounds them: AIDE nodes, not records.
    page.goto(f"{live_server.url}/campaigns/{campaign.id}/episodes/?policy=baseline&scaffold=aide")
    turns = [int(text) for text in page.locator("#episodes tbody td:nth-child(8)").all_inner_texts()]
    assert turns and all(1 <= count <= 3 for count in turns)
    page.locator("#episodes tbody a", has_text="turns").first.click()
    header = page.locator("#episode-turns p").first.inner_text()
    assert f"{turns[0]} of 3 turns (" in header and "policy calls with reviews, repairs and re-asks)" in header
