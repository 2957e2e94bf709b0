"""Writes about people: sign-up, organizations, memberships and their roles, invitations,
password reset. Every change of who may act in an organization announces itself with a
domain event (apps.accounts.events) for the audit log."""

from datetime import timedelta

from django.contrib.auth.models import User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import slugify

from apps.core.errors import ApplicationError, Conflict
from apps.core.events import publish
from apps.core.tokens import digest, new_secret

from . import emails, events
from .models import Invitation, Membership, Organization

Role = Membership.Role

INVITATION_DAYS = 7
ORGANIZATION_NAME_MAX = 200
# Admins may bring in people who run or read comparisons; only owners create other admins and owners.
ADMIN_INVITABLE_ROLES = (Role.MEMBER, Role.VIEWER)


def _actor_id(user: User | None) -> int | None:
    return user.pk if user is not None else None


def check_password(*, password: str, user: User | None = None, field: str = "password") -> None:
    """Django's AUTH_PASSWORD_VALIDATORS, as a 400 naming the field."""
    try:
        validate_password(password, user=user)
    except ValidationError as exc:
        raise ApplicationError(f"{field}: " + " ".join(exc.messages), extra={field: list(exc.messages)}) from exc


def _unique_slug(name: str) -> str:
    base = slugify(name)[:56] or "org"
    slug, n = base, 1
    while Organization.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


@transaction.atomic
def organization_create(*, name: str, owner: User) -> Organization:
    """A new organization whose only member, `owner`, is its owner."""
    name = name.strip()
    if not name or len(name) > ORGANIZATION_NAME_MAX:
        raise ApplicationError(f"organization_name: 1–{ORGANIZATION_NAME_MAX} characters",
                               extra={"organization_name": [f"1–{ORGANIZATION_NAME_MAX} characters."]})
    organization = Organization.objects.create(slug=_unique_slug(name), name=name)
    Membership.objects.create(organization=organization, user=owner, role=Role.OWNER)
    return organization


def _new_user(*, username: str, email: str, password: str) -> User:
    """A user with a validated password; 400 naming the field when the username or email is taken."""
    if User.objects.filter(username__iexact=username).exists():
        raise ApplicationError("username: taken", extra={"username": ["This username is taken; choose another."]})
    if email and User.objects.filter(email__iexact=email).exists():
        raise ApplicationError("email: in use", extra={
            "email": ["An account uses this email; sign in, or reset its password."]})
    check_password(password=password, user=User(username=username, email=email))
    try:
        with transaction.atomic():
            return User.objects.create_user(username=username, email=email, password=password)
    except IntegrityError as exc:  # a concurrent sign-up took the name between the check and the insert
        raise ApplicationError("username: taken", extra={"username": ["This username is taken; choose another."]}) \
            from exc


@transaction.atomic
def signup(*, username: str, email: str, password: str, organization_name: str) -> tuple[User, Organization]:
    """A new user and a new organization it owns."""
    user = _new_user(username=username, email=email, password=password)
    return user, organization_create(name=organization_name, owner=user)


# -- members --------------------------------------------------------------------------

def _other_owners(membership: Membership) -> bool:
    return Membership.objects.filter(organization_id=membership.organization_id, role=Role.OWNER) \
        .exclude(pk=membership.pk).exists()


def _refuse_last_owner(membership: Membership, what: str) -> None:
    if membership.role == Role.OWNER and not _other_owners(membership):
        raise Conflict(f"The last owner cannot be {what}; make another member an owner first.")


@transaction.atomic
def membership_change_role(*, membership: Membership, role: str, actor: User | None) -> Membership:
    if role not in Role.values:
        raise ApplicationError(f"role: one of {', '.join(Role.values)}",
                               extra={"role": [f"Choose one of {', '.join(Role.values)}."]})
    membership = Membership.objects.select_for_update().get(pk=membership.pk)
    # Locking the organization's owners serializes two owners demoting each other at once.
    list(Membership.objects.select_for_update().filter(organization_id=membership.organization_id, role=Role.OWNER))
    old_role = membership.role
    if role == old_role:
        return membership
    if role != Role.OWNER:
        _refuse_last_owner(membership, "demoted")
    membership.role = role
    membership.save(update_fields=["role", "updated_at"])
    publish(events.MEMBER_ROLE_CHANGED, organization_id=membership.organization_id, actor_id=_actor_id(actor),
            membership_id=membership.pk, user_id=membership.user_id, username=membership.user.get_username(),
            role=role, old_role=old_role)
    return membership


@transaction.atomic
def membership_remove(*, membership: Membership, actor: User | None) -> None:
    """Remove a member (or, when the actor is that member, leave). Their API tokens stop
    working with them: a token acts with its creator's role, and they no longer have one."""
    membership = Membership.objects.select_for_update().get(pk=membership.pk)
    list(Membership.objects.select_for_update().filter(organization_id=membership.organization_id, role=Role.OWNER))
    left = actor is not None and actor.pk == membership.user_id
    _refuse_last_owner(membership, "removed" if not left else "leave; the last owner cannot leave")
    publish(events.MEMBER_REMOVED, organization_id=membership.organization_id, actor_id=_actor_id(actor),
            membership_id=membership.pk, user_id=membership.user_id, username=membership.user.get_username(),
            role=membership.role, left=left)
    membership.delete()


# -- invitations ----------------------------------------------------------------------

def _check_inviter_may_grant(*, inviter_role: str | None, role: str) -> None:
    if role not in Role.values:
        raise ApplicationError(f"role: one of {', '.join(Role.values)}",
                               extra={"role": [f"Choose one of {', '.join(Role.values)}."]})
    if inviter_role == Role.OWNER or (inviter_role == Role.ADMIN and role in ADMIN_INVITABLE_ROLES):
        return
    raise ApplicationError(
        f"Only an owner may invite an {role}; admins invite members and viewers.",
        extra={"role": ["Admins may invite members and viewers only."]}, status_code=403)


def _issue_link(invitation: Invitation, *, base_url: str) -> None:
    secret = new_secret("i")
    invitation.token_hash = digest(secret)
    invitation.expires_at = timezone.now() + timedelta(days=INVITATION_DAYS)
    link = f"{base_url.rstrip('/')}/invitations/{secret}"
    transaction.on_commit(lambda: emails.send_invitation(invitation_id=invitation.pk, link=link))


@transaction.atomic
def invitation_create(*, organization: Organization, email: str, role: str, invited_by: User | None,
                      inviter_role: str | None, base_url: str) -> Invitation:
    """Emails an accept link that works for INVITATION_DAYS. A pending invitation of the
    same address is replaced (its link stops working)."""
    _check_inviter_may_grant(inviter_role=inviter_role, role=role)
    email = email.strip()
    if Membership.objects.filter(organization=organization, user__email__iexact=email).exists():
        raise Conflict(f"{email} is already a member of {organization.name}.")
    Invitation.objects.filter(organization=organization, email__iexact=email, accepted_at__isnull=True,
                              revoked_at__isnull=True).update(revoked_at=timezone.now())
    invitation = Invitation(organization=organization, email=email, role=role, invited_by=invited_by)
    _issue_link(invitation, base_url=base_url)
    invitation.save()
    publish(events.MEMBER_INVITED, organization_id=organization.pk, actor_id=_actor_id(invited_by),
            invitation_id=invitation.pk, email=email, role=role)
    return invitation


def _check_pending(invitation: Invitation) -> None:
    if invitation.accepted_at is not None:
        raise Conflict("This invitation was accepted already.")
    if invitation.revoked_at is not None:
        raise Conflict("This invitation was revoked; ask for a new one.")


@transaction.atomic
def invitation_resend(*, invitation: Invitation, inviter_role: str | None, base_url: str) -> Invitation:
    """A fresh link (the old one stops working) and a fresh expiry, emailed again."""
    _check_inviter_may_grant(inviter_role=inviter_role, role=invitation.role)
    invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
    _check_pending(invitation)
    _issue_link(invitation, base_url=base_url)
    invitation.save(update_fields=["token_hash", "expires_at", "updated_at"])
    return invitation


@transaction.atomic
def invitation_revoke(*, invitation: Invitation, inviter_role: str | None) -> Invitation:
    _check_inviter_may_grant(inviter_role=inviter_role, role=invitation.role)
    Invitation.objects.filter(pk=invitation.pk, accepted_at__isnull=True, revoked_at__isnull=True) \
        .update(revoked_at=timezone.now())
    invitation.refresh_from_db()
    return invitation


def invitation_problem(invitation: Invitation | None) -> str | None:
    """Why a link cannot be accepted, or None when it can."""
    if invitation is None:
        return "This invitation link is not valid."
    if invitation.accepted_at is not None:
        return "This invitation was accepted already."
    if invitation.revoked_at is not None:
        return "This invitation was revoked; ask for a new one."
    if invitation.expires_at <= timezone.now():
        return "This invitation has expired; ask for a new one."
    return None


@transaction.atomic
def invitation_accept(*, secret: str, user: User | None, username: str = "", password: str = "") -> Membership:
    """Join the invitation's organization with its role: as the signed-in `user`, or as a
    new user (`username`, `password`, the invited email). The link is the credential, used once."""
    invitation = Invitation.objects.select_for_update().filter(token_hash=digest(secret)).first()
    if problem := invitation_problem(invitation):
        raise ApplicationError(problem, status_code=404 if invitation is None else 410)
    assert invitation is not None  # noqa: S101  (invitation_problem said so; for the type checker)
    if user is None:
        if not username:
            raise ApplicationError("username: required to sign up", extra={"username": ["Choose a username."]})
        user = _new_user(username=username, email=invitation.email, password=password)
    membership, created = Membership.objects.get_or_create(organization=invitation.organization, user=user,
                                                           defaults={"role": invitation.role})
    if not created:
        raise Conflict(f"You are already a member of {invitation.organization.name}.")
    invitation.accepted_at = timezone.now()
    invitation.accepted_by = user
    invitation.save(update_fields=["accepted_at", "accepted_by", "updated_at"])
    return membership


# -- password reset -------------------------------------------------------------------

def password_reset_request(*, email: str, base_url: str) -> None:
    """Announce the request; a Celery task looks the address up and sends the mail
    (`password_reset_mail_send`). The request itself does neither, so it takes as long for an
    address with an account as for one without: its timing tells nobody who has an account."""
    publish(events.PASSWORD_RESET_REQUESTED, email=email.strip(), base_url=base_url)


def password_reset_mail_send(*, email: str, base_url: str) -> int:
    """Email a reset link to each active user of that address who has a password; the number sent."""
    sent = 0
    for user in User.objects.filter(email__iexact=email, is_active=True):
        if user.has_usable_password():
            emails.send_password_reset(user=user, base_url=base_url)
            sent += 1
    return sent


@transaction.atomic
def password_reset_confirm(*, uid: str, token: str, new_password: str) -> User:
    user = emails.user_of_reset_link(uid=uid, token=token)
    if user is None:
        raise ApplicationError("This password reset link is not valid or has expired; ask for a new one.",
                               extra={"token": ["Not valid or expired."]})
    check_password(password=new_password, user=user, field="new_password")
    user.set_password(new_password)
    user.save(update_fields=["password"])
    return user
