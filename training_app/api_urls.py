"""REST API URLs of the training side, feature by feature."""

from training_app.campaigns import urls as campaigns
from training_app.latency import urls as latency
from training_app.rollouts import urls as rollouts
from training_app.runs import urls as runs

urlpatterns = [*rollouts.api_urlpatterns, *campaigns.api_urlpatterns, *runs.api_urlpatterns, *latency.api_urlpatterns]
