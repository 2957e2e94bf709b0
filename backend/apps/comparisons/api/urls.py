from django.urls import path, re_path

from . import views

urlpatterns = [
    path("comparisons", views.ComparisonListCreateView.as_view(), name="comparison-list"),
    path("comparisons/<uuid:comparison_id>", views.ComparisonDetailView.as_view(), name="comparison-detail"),
    path("comparisons/<uuid:comparison_id>/cancel", views.ComparisonCancelView.as_view(), name="comparison-cancel"),
    path("comparisons/<uuid:comparison_id>/results", views.ComparisonResultsView.as_view(), name="comparison-results"),
    re_path(r"^comparisons/(?P<comparison_id>[0-9a-f-]{36})/samples\.(?P<fmt>csv|json)$",
            views.ComparisonSamplesExportView.as_view(), name="comparison-samples"),
    path("comparisons/<uuid:comparison_id>/verdict", views.ComparisonVerdictView.as_view(), name="comparison-verdict"),
    path("presets", views.PresetListView.as_view(), name="preset-list"),
]
