from django.urls import path

from . import views

urlpatterns = [
    path("network-profiles", views.NetworkProfileListCreateView.as_view(), name="network-profiles"),
    path("network-profiles/bounds", views.NetworkProfileBoundsView.as_view(), name="network-profile-bounds"),
]
