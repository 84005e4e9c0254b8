"""Page and API routes of latency studies."""

from django.urls import path

from training_app.latency import api, views

urlpatterns = [
    path("latency/", views.latency_list, name="latency-list"),
    path("latency/<int:study_id>/", views.latency_detail, name="latency-detail"),
    path("latency/<int:study_id>/study.json", views.latency_result_export, name="latency-result-export"),
]

api_urlpatterns = [
    path("latency-studies/", api.LatencyStudyListApi.as_view(), name="api-latency-study-list"),
    path("latency-studies/<int:study_id>/", api.LatencyStudyDetailApi.as_view(), name="api-latency-study-detail"),
    path("latency-studies/<int:study_id>/cancel/", api.LatencyStudyCancelApi.as_view(),
         name="api-latency-study-cancel"),
]
