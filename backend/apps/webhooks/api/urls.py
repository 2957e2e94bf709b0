from django.urls import path

from . import views

urlpatterns = [
    path("webhooks", views.WebhookListCreateView.as_view(), name="webhook-list"),
    path("webhooks/<uuid:webhook_id>", views.WebhookDetailView.as_view(), name="webhook-detail"),
]
