"""Events the reports app publishes (apps.core.events).

Payload of each: organization_id, actor_id, actor_token_id (apps.accounts.actor.Actor.event_fields),
share_link_id (str), share_link_prefix (the token's visible prefix), comparison_id (str),
comparison_name. A link's opens are counted on the link itself (open_count), not announced.
"""

SHARE_LINK_CREATED = "reports.share_link_created"
SHARE_LINK_REVOKED = "reports.share_link_revoked"
