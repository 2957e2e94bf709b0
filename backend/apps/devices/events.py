"""Events the devices app publishes (apps.core.events).

DEVICE_QUARANTINE_RELEASED payload: organization_id (the pool's organization), actor_id,
actor_token_id (apps.accounts.actor.Actor.event_fields), device_id (str), device_label.

RUNNER_BREAKER_RESET payload: organization_id, actor_id, actor_token_id, runner_id (str),
runner_name, reason (why it had tripped), reset_by.
"""

DEVICE_QUARANTINE_RELEASED = "devices.quarantine_released"
RUNNER_BREAKER_RESET = "devices.runner_breaker_reset"
