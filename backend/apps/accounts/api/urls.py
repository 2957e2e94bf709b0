from django.urls import path

from . import secret_views, token_views, views

urlpatterns = [
    path("auth/csrf", views.CsrfView.as_view(), name="auth-csrf"),
    path("auth/login", views.LoginView.as_view(), name="auth-login"),
    path("auth/logout", views.LogoutView.as_view(), name="auth-logout"),
    path("auth/me", views.MeView.as_view(), name="auth-me"),
    path("tokens", token_views.ApiTokenListCreateView.as_view(), name="api-tokens"),
    path("tokens/<uuid:token_id>/revoke", token_views.ApiTokenRevokeView.as_view(), name="api-token-revoke"),
    path("secrets", secret_views.SecretListCreateView.as_view(), name="secrets"),
    path("secrets/<str:name>", secret_views.SecretDetailView.as_view(), name="secret-detail"),
]
