"""The runner protocol v1 (device-runner/contract/README.md). Runners pull;
nothing here ever connects to a runner."""

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.comparisons.artifacts import ARTIFACT_MAX_BYTES, artifact_name_error, content_type_of, run_artifact_store
from apps.core.errors import ApplicationError, PayloadTooLarge
from apps.core.throttling import RunnerRateThrottle
from apps.devices.authentication import (
    EnrollmentTokenAuthentication,
    HasEnrollmentToken,
    IsRunner,
    RunnerTokenAuthentication,
    enrollment_token_of,
    runner_of,
)
from apps.devices.services import runner_enroll
from apps.results.ingest import (
    ColumnarBatchParser,
    ColumnarSamples,
    SampleBatchParser,
    columnar_validate,
    samples_validate,
)
from apps.results.ingest.blocks import block_store
from apps.results.ingest.columnar import MEDIA_TYPE as COLUMNAR_MEDIA_TYPE
from apps.scheduler.leasing import (
    RUNNER_WORK,
    heartbeat_receive,
    hello_receive,
    lease_acquire,
    release_connection,
    run_finish,
)

from .serializers import (
    ArtifactStoredSerializer,
    BatchInputSerializer,
    BatchOutputSerializer,
    FinishInputSerializer,
    FinishOutputSerializer,
    HeartbeatInputSerializer,
    HeartbeatOutputSerializer,
    HelloInputSerializer,
    HelloOutputSerializer,
    LeaseInputSerializer,
    LeaseOutputSerializer,
    RegisterInputSerializer,
    RegisterOutputSerializer,
)

HEARTBEAT_INTERVAL_S = 10


def validated(serializer_class: type[serializers.Serializer], request: Request) -> dict:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


class RunnerAPIView(APIView):
    authentication_classes = [RunnerTokenAuthentication]
    permission_classes = [IsRunner]
    throttle_classes = [RunnerRateThrottle]
    parser_classes = [JSONParser]  # "All bodies are JSON" (contract README)

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        # A few requests at a time per process, the rest queued (first come, first served) before they
        # take a database connection (apps.core.admission); a lease lends its slot back while
        # it long-polls (apps.scheduler.leasing).
        with RUNNER_WORK.held(before_waiting=release_connection):
            return super().dispatch(request, *args, **kwargs)


class RegisterView(APIView):
    authentication_classes = [EnrollmentTokenAuthentication]
    permission_classes = [HasEnrollmentToken]
    throttle_classes = [RunnerRateThrottle]
    parser_classes = [JSONParser]

    @extend_schema(request=RegisterInputSerializer, responses={201: RegisterOutputSerializer},
                   summary="Enroll a runner with a pool enrollment token; returns the runner's token once")
    def post(self, request: Request) -> Response:
        data = validated(RegisterInputSerializer, request)
        token = enrollment_token_of(request)
        runner, secret = runner_enroll(token=token, **data)
        body = {"runner_id": runner.id, "runner_token": secret, "pool": token.pool.slug}
        return Response(RegisterOutputSerializer(body).data, status=status.HTTP_201_CREATED)


class HelloView(RunnerAPIView):
    @extend_schema(request=HelloInputSerializer, responses={200: HelloOutputSerializer},
                   summary="Runner registers its devices")
    def post(self, request: Request) -> Response:
        data = validated(HelloInputSerializer, request)
        runner = runner_of(request)
        devices = hello_receive(runner=runner, info=data["runner"], devices=data["devices"])
        body = {"runner_id": runner.id, "heartbeat_interval_s": HEARTBEAT_INTERVAL_S,
                "lease_wait_s": settings.RUNNER_LEASE_WAIT_MAX_S, "devices": devices}
        return Response(HelloOutputSerializer(body).data)


class HeartbeatView(RunnerAPIView):
    @extend_schema(request=HeartbeatInputSerializer, responses={200: HeartbeatOutputSerializer},
                   summary="Device descriptors; extends leases")
    def post(self, request: Request) -> Response:
        data = validated(HeartbeatInputSerializer, request)
        runs = [{"run_id": str(r["run_id"]), "lease_token": r["lease_token"]} for r in data["runs"]]
        answer = heartbeat_receive(runner=runner_of(request), devices=data["devices"], runs=runs)
        return Response(HeartbeatOutputSerializer(answer).data)


class LeaseView(RunnerAPIView):
    @extend_schema(request=LeaseInputSerializer, responses={200: LeaseOutputSerializer, 204: None},
                   summary="Long-poll for work")
    def post(self, request: Request) -> Response:
        data = validated(LeaseInputSerializer, request)
        runs = lease_acquire(runner=runner_of(request), serials=data["devices"], wait_s=data["wait_s"])
        if not runs:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(LeaseOutputSerializer({"runs": runs}).data)


class SamplesView(RunnerAPIView):
    # JSON, or the same batch as columns (contract README, "The columnar body")
    parser_classes = [SampleBatchParser, ColumnarBatchParser]

    @extend_schema(request={"application/json": BatchInputSerializer, COLUMNAR_MEDIA_TYPE: OpenApiTypes.BINARY},
                   responses={200: BatchOutputSerializer},
                   summary="Upload one block's samples (JSON, or the same batch as columns: the contract's "
                           "columnar body)")
    def post(self, request: Request, run_id: str) -> Response:
        batch = request.data
        samples = batch.get("samples") if isinstance(batch, dict) else None
        if isinstance(samples, list | ColumnarSamples) and len(samples) > settings.RUNNER_MAX_BATCH_SAMPLES:
            raise PayloadTooLarge(f"samples: at most {settings.RUNNER_MAX_BATCH_SAMPLES} per batch (one block)")
        data = validated(BatchInputSerializer, request)

        def samples_check(arms: set[str]) -> None:
            if isinstance(data["samples"], ColumnarSamples):
                columnar_validate(data["samples"], arms=arms, block=data["block"])
                return
            samples_validate(data["samples"], arms=arms, block=data["block"],
                             contract_error=getattr(batch, "contract_error", None))

        # One transaction: the run locked with its arm labels and the block recorded (one
        # query), the samples checked against the labels (400), the lease checked (409), the
        # samples stored.
        stored = block_store(runner=runner_of(request), run_id=run_id, batch=data, samples_check=samples_check)
        return Response(BatchOutputSerializer(stored).data)


class FinishView(RunnerAPIView):
    @extend_schema(request=FinishInputSerializer, responses={200: FinishOutputSerializer},
                   summary="Report the end of an attempt, classified (error_kind)")
    def post(self, request: Request, run_id: str) -> Response:
        data = validated(FinishInputSerializer, request)
        run = run_finish(runner=runner_of(request), run_id=run_id, report=data)
        body = {"run_id": run.id, "status": run.status, "attempt": run.attempt, "error_kind": run.error_kind or None}
        return Response(FinishOutputSerializer(body).data)


class ArtifactUploadView(RunnerAPIView):
    """The body is the file itself, never parsed; its size is checked before it is read."""

    @extend_schema(
        request={"application/octet-stream": OpenApiTypes.BINARY, "text/plain": OpenApiTypes.STR},
        parameters=[
            OpenApiParameter("X-Lease-Token", str, OpenApiParameter.HEADER, required=True,
                             description="the run's current lease, or its last one up to 10 minutes after finish"),
            OpenApiParameter("X-Artifact-Name", str, OpenApiParameter.HEADER, required=True,
                             description="[A-Za-z0-9._-]{1,100}, e.g. block-3-fastlane.log; "
                                         "the same name in the same attempt replaces the earlier upload"),
        ],
        responses={201: ArtifactStoredSerializer},
        summary=f"Keep a file with the run (at most {ARTIFACT_MAX_BYTES // (1024 * 1024)} MiB, 64 per run)",
    )
    def post(self, request: Request, run_id: str) -> Response:
        token = request.META.get("HTTP_X_LEASE_TOKEN", "")
        name = request.META.get("HTTP_X_ARTIFACT_NAME", "")
        if not token or len(token) > 64:
            raise ApplicationError("X-Lease-Token: required, at most 64 characters",
                                   extra={"X-Lease-Token": ["required, at most 64 characters"]})
        if error := artifact_name_error(name):
            raise ApplicationError(error, extra={"X-Artifact-Name": [error.split(": ", 1)[1]]})
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            declared = 0
        if declared > ARTIFACT_MAX_BYTES:
            raise PayloadTooLarge(f"artifact: at most {ARTIFACT_MAX_BYTES} bytes; keep the tail of a longer log")
        artifact = run_artifact_store(runner=runner_of(request), run_id=run_id, lease_token=token, name=name,
                                      content_type=content_type_of(request.META.get("CONTENT_TYPE")),
                                      data=request.body)
        body = {"id": artifact.id, "name": artifact.name, "size": artifact.size}
        return Response(ArtifactStoredSerializer(body).data, status=status.HTTP_201_CREATED)
