from django.urls import path

from . import public_views, views

urlpatterns = [
    path("comparisons/<uuid:comparison_id>/shares", views.ComparisonShareListCreateView.as_view(),
         name="comparison-share-list"),
    path("comparisons/<uuid:comparison_id>/shares/<uuid:share_id>/revoke", views.ShareRevokeView.as_view(),
         name="comparison-share-revoke"),
    path("comparisons/<uuid:comparison_id>/report.html", views.ComparisonReportHtmlView.as_view(),
         name="comparison-report-html"),
    path("comparisons/<uuid:comparison_id>/report.pdf", views.ComparisonReportPdfView.as_view(),
         name="comparison-report-pdf"),
    path("shares", views.ShareListView.as_view(), name="share-list"),
    path("public/reports/<str:token>", public_views.PublicReportView.as_view(), name="public-report"),
    path("public/reports/<str:token>/card.png", public_views.PublicReportCardView.as_view(),
         name="public-report-card"),
    path("public/reports/<str:token>/report.html", public_views.PublicReportHtmlView.as_view(),
         name="public-report-html"),
    path("public/reports/<str:token>/report.pdf", public_views.PublicReportPdfView.as_view(),
         name="public-report-pdf"),
]

# Outside /api/: mounted before the app's catch-all in config/urls.py.
page_urlpatterns = [
    path("r/<str:token>", public_views.ShareLinkPageView.as_view(), name="share-link-page"),
]
