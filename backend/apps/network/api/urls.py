from django.urls import path

from . import views

urlpatterns = [path("network-profiles", views.NetworkProfileListCreateView.as_view(), name="network-profiles")]
