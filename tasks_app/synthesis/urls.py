"""Page and API routes of synthesis runs."""

from django.urls import path

from tasks_app.synthesis import api, views

urlpatterns = [
    path("synthesis/", views.synthesis_run_list, name="synthesis-run-list"),
    path("synthesis/<int:run_id>/", views.synthesis_run_detail, name="synthesis-run-detail"),
]

api_urlpatterns = [
    path("synthesis-runs/", api.SynthesisRunListApi.as_view(), name="api-synthesis-run-list"),
    path("synthesis-runs/<int:run_id>/", api.SynthesisRunDetailApi.as_view(), name="api-synthesis-run-detail"),
    path("synthesis-runs/<int:run_id>/cancel/", api.SynthesisRunCancelApi.as_view(), name="api-synthesis-run-cancel"),
]
