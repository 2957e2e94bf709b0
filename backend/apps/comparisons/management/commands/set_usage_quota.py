from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.accounts.models import Organization
from apps.comparisons.models import QUOTA_MAX_DEVICE_MINUTES as QUOTA_MAX
from apps.comparisons.quota import usage_quota_set


class Command(BaseCommand):
    help = "Set an organization's monthly device-minute quota, or remove it with 'none'."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("organization", help="the organization's slug")
        parser.add_argument("minutes", help=f"device-minutes a month (0…{QUOTA_MAX:,}), or 'none' for no limit")

    def handle(self, *args: Any, **options: Any) -> None:
        organization = Organization.objects.filter(slug=options["organization"]).first()
        if organization is None:
            raise CommandError(f"No organization with slug {options['organization']!r}.")
        raw = options["minutes"].strip().lower()
        if raw == "none":
            minutes = None
        elif raw.isdigit() and int(raw) <= QUOTA_MAX:
            minutes = int(raw)
        else:
            raise CommandError(f"minutes: a whole number from 0 to {QUOTA_MAX:,}, or 'none'; "
                               f"got {options['minutes']!r}.")
        usage_quota_set(organization=organization, monthly_device_minutes=minutes)
        limit = "no limit" if minutes is None else f"{minutes:,} device-minutes a month"
        self.stdout.write(f"{organization.slug}: {limit}")
