from typing import Any

from django.core.management.base import BaseCommand

from apps.accounts.services import secrets_reencrypt


class Command(BaseCommand):
    help = ("Re-seal every organization secret under the first key of LATENCYLAB_SECRETS_KEY (key rotation: put "
            "the new key first, run this, then drop the old key).")

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(f"re-sealed {secrets_reencrypt()} secret(s)")
