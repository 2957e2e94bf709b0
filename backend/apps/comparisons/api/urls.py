from django.urls import path

from . import views

urlpatterns = [
    path("comparisons", views.ComparisonListCreateView.as_view(), name="comparison-list"),
    path("comparisons/<uuid:comparison_id>", views.ComparisonDetailView.as_view(), name="comparison-detail"),
    path("comparisons/<uuid:comparison_id>/cancel", views.ComparisonCancelView.as_view(), name="comparison-cancel"),
    path("presets", views.PresetListView.as_view(), name="preset-list"),
]
