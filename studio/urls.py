"""URLs of the studio's cross-app pages."""

from django.urls import path

from studio import views

urlpatterns = [
    path("", views.dashboard, name="home"),
    path("jobs/<str:label>/<int:job_id>/progress/", views.job_progress, name="job-progress"),
    path("jobs/<str:label>/<int:job_id>/cancel/", views.job_cancel, name="job-cancel"),
]
