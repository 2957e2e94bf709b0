from django.urls import path

from . import views

urlpatterns = [
    path("register", views.RegisterView.as_view(), name="runner-register"),
    path("hello", views.HelloView.as_view(), name="runner-hello"),
    path("heartbeat", views.HeartbeatView.as_view(), name="runner-heartbeat"),
    path("lease", views.LeaseView.as_view(), name="runner-lease"),
    path("runs/<uuid:run_id>/samples", views.SamplesView.as_view(), name="runner-samples"),
    path("runs/<uuid:run_id>/finish", views.FinishView.as_view(), name="runner-finish"),
    path("runs/<uuid:run_id>/artifacts", views.ArtifactUploadView.as_view(), name="runner-artifacts"),
]
