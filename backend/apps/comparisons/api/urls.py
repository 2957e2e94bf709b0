from django.urls import path

from . import artifact_views, device_views, har_views, spec_schema_views, usage_views, views

urlpatterns = [
    path("comparisons", views.ComparisonListCreateView.as_view(), name="comparison-list"),
    path("comparisons/validate", views.ComparisonValidateView.as_view(), name="comparison-validate"),
    path("comparisons/<uuid:comparison_id>", views.ComparisonDetailView.as_view(), name="comparison-detail"),
    path("comparisons/<uuid:comparison_id>/cancel", views.ComparisonCancelView.as_view(), name="comparison-cancel"),
    path("comparisons/<uuid:comparison_id>/runs/<uuid:run_id>/artifacts",
         artifact_views.RunArtifactListView.as_view(), name="run-artifact-list"),
    path("comparisons/<uuid:comparison_id>/runs/<uuid:run_id>/artifacts/<uuid:artifact_id>",
         artifact_views.RunArtifactDownloadView.as_view(), name="run-artifact-download"),
    path("presets", views.PresetListView.as_view(), name="preset-list"),
    path("usage", usage_views.UsageView.as_view(), name="usage"),
    path("har-import", har_views.HarImportView.as_view(), name="har-import"),
    path("schemas/comparison-spec", spec_schema_views.ComparisonSpecSchemaView.as_view(),
         name="comparison-spec-schema"),
    # The Devices page's devices with their recent runs (the devices app serves pools,
    # runners, enrollment tokens and the quarantine release).
    path("devices", device_views.DeviceListView.as_view(), name="device-list"),
    path("devices/<uuid:device_id>", device_views.DeviceDetailView.as_view(), name="device-detail"),
]
