"""Sign-in endpoints (page and API token) that refuse, with a clear message, once failures pass the limits; DELETE revokes."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.shortcuts import render
from rest_framework import status
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from accounts import login_throttle
from sandmle_web.parsers import BoundedJSONParser


class ThrottledLoginView(auth_views.LoginView):
    template_name = "accounts/login.html"

    def post(self, request, *args, **kwargs):
        reason = login_throttle.blocked_reason(username=request.POST.get("username", ""), request=request)
        if reason:
            return render(request, "403.html", {"reason": reason}, status=429)
        return super().post(request, *args, **kwargs)

    def delete(self, request, *args, **kwargs):
        from accounts.token_views import token_revoke_api

        return token_revoke_api(request)


class ThrottledTokenView(ObtainAuthToken):
    # ObtainAuthToken names its own parsers, DRF's JSONParser among them; anyone may post here, so the bounded one.
    parser_classes = (FormParser, MultiPartParser, BoundedJSONParser)

    def post(self, request, *args, **kwargs):
        username = request.data.get("username", "") if hasattr(request.data, "get") else ""
        reason = login_throttle.blocked_reason(username=str(username), request=request)
        if reason:
            return Response({"detail": reason}, status=status.HTTP_429_TOO_MANY_REQUESTS)
        return super().post(request, *args, **kwargs)

    def delete(self, request, *args, **kwargs):
        from accounts.token_views import token_revoke_api

        return token_revoke_api(request)
