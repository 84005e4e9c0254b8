"""Page URLs of task-set audits."""

from django.urls import path

from training_app.audits import views

urlpatterns = [
    path("audits/", views.audit_list, name="audit-list"),
    path("audits/<int:audit_id>/", views.audit_detail, name="audit-detail"),
    path("audits/<int:audit_id>/evidence/<int:verdict_id>.json", views.audit_evidence, name="audit-evidence"),
]
