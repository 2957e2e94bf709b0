from django.urls import path

from . import runner
from .aa_report import PoolAAReportView

runner_urlpatterns = [
    path("hello", runner.HelloView.as_view(), name="runner-hello"),
    path("heartbeat", runner.HeartbeatView.as_view(), name="runner-heartbeat"),
    path("lease", runner.LeaseView.as_view(), name="runner-lease"),
    path("runs/<uuid:run_id>/samples", runner.SamplesView.as_view(), name="runner-samples"),
    path("runs/<uuid:run_id>/finish", runner.FinishView.as_view(), name="runner-finish"),
]

urlpatterns = [path("pools/<slug:slug>/aa-report", PoolAAReportView.as_view(), name="pool-aa-report")]
