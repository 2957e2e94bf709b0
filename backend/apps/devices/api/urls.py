from django.urls import path

from . import views

urlpatterns = [
    path("pools", views.PoolListView.as_view(), name="pool-list"),
    path("pools/<slug:slug>/enrollment-tokens", views.EnrollmentTokenListCreateView.as_view(),
         name="pool-enrollment-tokens"),
    path("pools/<slug:slug>/enrollment-tokens/<uuid:token_id>/revoke", views.EnrollmentTokenRevokeView.as_view(),
         name="pool-enrollment-token-revoke"),
    path("runners", views.RunnerListView.as_view(), name="runner-list"),
    path("runners/<uuid:runner_id>/reset-breaker", views.RunnerBreakerResetView.as_view(),
         name="runner-reset-breaker"),
    path("devices/<uuid:device_id>/release", views.DeviceReleaseView.as_view(), name="device-release"),
]
