"""Events the devices app publishes (apps.core.events).

DEVICE_QUARANTINE_RELEASED payload: organization_id (the pool's organization), actor_id,
actor_token_id (apps.accounts.actor.Actor.event_fields), device_id (str), device_label.
"""

DEVICE_QUARANTINE_RELEASED = "devices.quarantine_released"
