"""URLs of the studio: pages per app, the REST API under /api/, accounts and health."""

from django.contrib import admin
from django.contrib.auth import views as auth_views

from accounts.views import ThrottledLoginView, ThrottledTokenView
from django.urls import include, path

from sandmle_web.health import health

urlpatterns = [
    path("", include("studio.urls")),
    path("login/", ThrottledLoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("health/", health, name="health"),
    path("admin/", admin.site.urls),
    path("api/token/", ThrottledTokenView.as_view(), name="api-token"),
    path("", include("tasks_app.urls")),
    path("", include("training_app.urls")),
    path("api/", include("tasks_app.api_urls")),
    path("api/", include("training_app.api_urls")),
]
