"""Events the webhooks app publishes (apps.core.events) when an organization's webhooks change.

Payload of each: organization_id, actor_id, actor_token_id (apps.accounts.actor.Actor.event_fields),
webhook_id (str), url, and `changes` (the fields set: {"active": …, "events": […]}; for
created, the initial events and active flag; empty for deleted).
"""

WEBHOOK_CREATED = "webhooks.webhook_created"
WEBHOOK_UPDATED = "webhooks.webhook_updated"
WEBHOOK_DELETED = "webhooks.webhook_deleted"
