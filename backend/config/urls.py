from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from apps.core.spa import spa
from apps.reports.api.urls import page_urlpatterns as share_link_pages

api_v1 = [
    path("", include("apps.accounts.api.urls")),
    path("", include("apps.devices.api.urls")),
    path("", include("apps.comparisons.api.urls")),
    path("", include("apps.results.api.urls")),
    path("", include("apps.network.api.urls")),
    path("", include("apps.webhooks.api.urls")),
    path("", include("apps.reports.api.urls")),
]

urlpatterns = [
    path("api/v1/", include(api_v1)),
    path("api/runner/v1/", include("apps.runner_protocol.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    *share_link_pages,
    re_path(r"^(?!api/)(?P<path>.*)$", spa, name="spa"),
]
