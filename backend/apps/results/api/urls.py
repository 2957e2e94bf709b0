from django.urls import path, re_path

from . import comparison_views, home_views, trend_views, views
from .aa_report import PoolAAReportView

urlpatterns = [
    path("imports", views.ImportView.as_view(), name="imports"),
    path("comparisons/<uuid:comparison_id>/results", comparison_views.ComparisonResultsView.as_view(),
         name="comparison-results"),
    # The pattern of <uuid:…>, spelled out so that only the two formats follow it.
    re_path(r"^comparisons/(?P<comparison_id>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"
            r"/samples\.(?P<fmt>csv|json)$",
            comparison_views.ComparisonSamplesExportView.as_view(), name="comparison-samples"),
    path("comparisons/<uuid:comparison_id>/verdict", comparison_views.ComparisonVerdictView.as_view(),
         name="comparison-verdict"),
    path("comparisons/<uuid:comparison_id>/verdict/history", comparison_views.ComparisonVerdictHistoryView.as_view(),
         name="comparison-verdict-history"),
    path("trends", trend_views.TrendView.as_view(), name="trends"),
    path("trends.csv", trend_views.TrendCsvView.as_view(), name="trends-csv"),
    path("trends/options", trend_views.TrendOptionsView.as_view(), name="trend-options"),
    path("home", home_views.HomeView.as_view(), name="home"),
    path("pools/<slug:slug>/aa-report", PoolAAReportView.as_view(), name="pool-aa-report"),
]
