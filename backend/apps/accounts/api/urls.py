from django.urls import path

from . import account_views, member_views, secret_views, token_views, views

urlpatterns = [
    path("auth/csrf", views.CsrfView.as_view(), name="auth-csrf"),
    path("auth/login", views.LoginView.as_view(), name="auth-login"),
    path("auth/logout", views.LogoutView.as_view(), name="auth-logout"),
    path("auth/me", views.MeView.as_view(), name="auth-me"),
    path("auth/signup", account_views.SignupView.as_view(), name="auth-signup"),
    path("auth/organization", account_views.OrganizationSelectView.as_view(), name="auth-organization"),
    path("auth/password-reset", account_views.PasswordResetRequestView.as_view(), name="auth-password-reset"),
    path("auth/password-reset/confirm", account_views.PasswordResetConfirmView.as_view(),
         name="auth-password-reset-confirm"),
    path("auth/invitations/<str:token>", account_views.InvitationPreviewView.as_view(), name="invitation-preview"),
    path("auth/invitations/<str:token>/accept", account_views.InvitationAcceptView.as_view(),
         name="invitation-accept"),
    path("organizations", account_views.OrganizationListCreateView.as_view(), name="organizations"),
    path("members", member_views.MemberListView.as_view(), name="members"),
    path("members/leave", member_views.MemberLeaveView.as_view(), name="member-leave"),
    path("members/<uuid:membership_id>", member_views.MemberDetailView.as_view(), name="member-detail"),
    path("invitations", member_views.InvitationListCreateView.as_view(), name="invitations"),
    path("invitations/<uuid:invitation_id>/resend", member_views.InvitationResendView.as_view(),
         name="invitation-resend"),
    path("invitations/<uuid:invitation_id>/revoke", member_views.InvitationRevokeView.as_view(),
         name="invitation-revoke"),
    path("tokens", token_views.ApiTokenListCreateView.as_view(), name="api-tokens"),
    path("tokens/<uuid:token_id>/revoke", token_views.ApiTokenRevokeView.as_view(), name="api-token-revoke"),
    path("secrets", secret_views.SecretListCreateView.as_view(), name="secrets"),
    path("secrets/<str:name>", secret_views.SecretDetailView.as_view(), name="secret-detail"),
]
