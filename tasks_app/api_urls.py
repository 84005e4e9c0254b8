"""REST API URLs of the task side, feature by feature."""

from tasks_app.review import urls as review
from tasks_app.seeds import urls as seeds
from tasks_app.synthesis import urls as synthesis
from tasks_app.task_sets import urls as task_sets
from tasks_app.tasks import urls as tasks

urlpatterns = [
    *seeds.api_urlpatterns, *synthesis.api_urlpatterns, *tasks.api_urlpatterns, *task_sets.api_urlpatterns,
    *review.api_urlpatterns,
]
