import json
from typing import Any

from django.core.management.base import BaseCommand

from apps.accounts.services import organization_get_or_create, user_ensure_member
from apps.devices.services import pool_get_or_create, runner_register


class Command(BaseCommand):
    help = (
        "Create (idempotently) the demo organization, user and local device pool, and (re-)key the local "
        "host runner. Prints JSON with the runner token; safe to run again."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--org", default="demo")
        parser.add_argument("--username", default="demo")
        parser.add_argument("--password", default="demo-latencylab")
        parser.add_argument("--pool", default="local")
        parser.add_argument("--runner", default="local-host-runner")
        parser.add_argument("--runner-token", default=None, help="use this runner secret instead of a new one")

    def handle(self, *args: Any, **options: Any) -> None:
        org = organization_get_or_create(slug=options["org"], name="Demo organization")
        user_ensure_member(organization=org, username=options["username"], password=options["password"])
        pool = pool_get_or_create(organization=org, slug=options["pool"], name="Local host runners")
        _, runner_token = runner_register(pool=pool, name=options["runner"], secret=options["runner_token"])
        self.stdout.write(
            json.dumps({"organization": org.slug, "pool": pool.slug, "username": options["username"],
                        "runner": options["runner"], "runner_token": runner_token})
        )
