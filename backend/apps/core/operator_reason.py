"""The reason an operator gives for an action on a customer's things (suspending an
organization, disabling a runner, quarantining a device): kept with the change."""

from .errors import ApplicationError

OPERATOR_REASON_MAX = 300


def operator_reason(reason: str) -> str:
    """The reason, stripped; a 400 naming the field unless it is 1–OPERATOR_REASON_MAX characters."""
    reason = reason.strip()
    if not reason or len(reason) > OPERATOR_REASON_MAX:
        raise ApplicationError(f"reason: 1–{OPERATOR_REASON_MAX} characters saying why",
                               extra={"reason": [f"1–{OPERATOR_REASON_MAX} characters saying why."]})
    return reason
