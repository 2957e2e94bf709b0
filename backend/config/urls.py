from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from apps.core.spa import spa
from apps.core.static import static_file
from apps.reports.api.urls import page_urlpatterns as share_link_pages

api_v1 = [
    path("", include("apps.accounts.api.urls")),
    path("", include("apps.devices.api.urls")),
    path("", include("apps.comparisons.api.urls")),
    path("", include("apps.results.api.urls")),
    path("", include("apps.network.api.urls")),
    path("", include("apps.webhooks.api.urls")),
    path("", include("apps.reports.api.urls")),
    path("", include("apps.audit.api.urls")),
]

urlpatterns = [
    path("api/v1/", include(api_v1)),
    path("api/runner/v1/", include("apps.runner_protocol.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its start-up script as a file: the CSP allows no inline script.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path("admin/", admin.site.urls),
    path("", include("apps.monitoring.urls")),  # /metrics, for the operator's Prometheus
    path("static/<path:path>", static_file, name="static"),
    *share_link_pages,
    re_path(r"^(?!api/)(?P<path>.*)$", spa, name="spa"),
]

handler404 = "apps.core.not_found.not_found"
