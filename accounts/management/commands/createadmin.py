"""`manage.py createadmin`: creates the first admin (or any role) and prints its credentials and API token."""

from __future__ import annotations

import secrets

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError

from accounts.roles import Role
from accounts.services import user_create, user_token


class Command(BaseCommand):
    help = "Create a user with a role (admin by default); prints the password (generated unless given) and API token."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="admin")
        parser.add_argument("--password", default="", help="generated when empty")
        parser.add_argument("--email", default="")
        parser.add_argument("--role", default="admin", choices=[role.group_name for role in Role])
        parser.add_argument("--if-missing", action="store_true", help="do nothing when the user exists")

    def handle(self, *args, username, password, email, role, if_missing, **options):
        if User.objects.filter(username=username).exists():
            if if_missing:
                self.stdout.write(f"user {username} exists; left as it is")
                return
            raise CommandError(f"a user named {username!r} already exists")
        password = password or secrets.token_urlsafe(12)
        user = user_create(username=username, password=password, role=Role[role.upper()], email=email)
        self.stdout.write(f"username: {username}")
        self.stdout.write(f"password: {password}")
        self.stdout.write(f"api token: {user_token(user=user)}")
