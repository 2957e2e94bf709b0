"""The domain events apps.accounts publishes (apps.core.events), for listeners such as the
audit log. Every payload is keyword-only and carries `organization_id` (UUID) and
`actor_id` (the acting user's id, or None for an operator's command or a token without a
creator), plus the fields below.

- `accounts.member_invited`: `invitation_id`, `email`, `role`.
- `accounts.member_removed`: `membership_id`, `user_id`, `username`, `role` (the role it
  had), `left` (True when the member left by themself).
- `accounts.member_role_changed`: `membership_id`, `user_id`, `username`, `role` (new), `old_role`.
- `accounts.api_token_created`: `token_id`, `token_name`, `scopes`, `expires_at` (or None).
- `accounts.api_token_revoked`: `token_id`, `token_name`.

Not for the audit log (no organization, no actor; the address may have no account):

- `accounts.password_reset_requested`: `email`, `base_url` (where the emailed link points).
"""

MEMBER_INVITED = "accounts.member_invited"
MEMBER_REMOVED = "accounts.member_removed"
MEMBER_ROLE_CHANGED = "accounts.member_role_changed"
API_TOKEN_CREATED = "accounts.api_token_created"  # noqa: S105  (an event name)
API_TOKEN_REVOKED = "accounts.api_token_revoked"  # noqa: S105  (an event name)
PASSWORD_RESET_REQUESTED = "accounts.password_reset_requested"  # noqa: S105  (an event name)
