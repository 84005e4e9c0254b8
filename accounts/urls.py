"""Page URLs of accounts: the API token page."""

from django.urls import path

from accounts.token_views import token_page

urlpatterns = [
    path("account/token/", token_page, name="account-token"),
]
