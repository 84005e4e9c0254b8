"""URLs of the studio: pages per app, the REST API under /api/, accounts and health."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.templatetags.static import static

from accounts.views import ThrottledLoginView, ThrottledTokenView
from django.http import JsonResponse
from django.urls import include, path
from django.views.defaults import page_not_found
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from sandmle_web.health import health

urlpatterns = [
    path("", include("studio.urls")),
    path("login/", ThrottledLoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("health/", health, name="health"),
    # Browsers ask for /favicon.ico whatever the page links: answered, so no page logs a 404 for it.
    path("favicon.ico", lambda request: redirect(static("favicon.svg")), name="favicon"),
    path("admin/", admin.site.urls),
    path("api/token/", ThrottledTokenView.as_view(), name="api-token"),
    path("", include("accounts.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The docs are pages for a browser: anonymous visitors go to the login page; the API's role check follows.
    path("api/docs/", login_required(SpectacularSwaggerView.as_view(url_name="api-schema")), name="api-docs"),
    path("api/redoc/", login_required(SpectacularRedocView.as_view(url_name="api-schema", template_name="api/redoc.html")),
         name="api-redoc"),
    path("", include("tasks_app.urls")),
    path("", include("training_app.urls")),
    path("api/", include("tasks_app.api_urls")),
    path("api/", include("training_app.api_urls")),
]


def not_found(request, exception):
    """Under /api/ a URL that matches no route (say a negative id) answers JSON like DRF's own 404s; pages keep HTML."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found: no API endpoint or object at this address."}, status=404)
    return page_not_found(request, exception)


handler404 = not_found
