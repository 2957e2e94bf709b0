from typing import Any

from django.core.management.base import BaseCommand, CommandError

from apps.accounts.models import Organization
from apps.accounts.services import api_token_create


class Command(BaseCommand):
    help = "Mint an API token for an organization and print it (shown once; only its hash is stored)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--org", required=True, help="organization slug")
        parser.add_argument("--name", default="cli", help="a label for the token")
        parser.add_argument("--scopes", default="read,write,ci", help="comma-separated: read, write, ci")
        parser.add_argument("--expires-in-days", type=int, default=None,
                            help="1–365; default: never expires (revoke it under /tokens)")

    def handle(self, *args: Any, **options: Any) -> None:
        org = Organization.objects.filter(slug=options["org"]).first()
        if org is None:
            raise CommandError(f"No organization with slug {options['org']!r}.")
        _, secret = api_token_create(
            organization=org, name=options["name"], scopes=[s.strip() for s in options["scopes"].split(",") if s],
            expires_in_days=options["expires_in_days"],
        )
        self.stdout.write(secret)
