"""The runner protocol v1 (DESIGN §5.3, device-runner/contract/README.md). Runners pull;
nothing here ever connects to a runner."""

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.comparisons.leasing import heartbeat_extend_leases, lease_acquire, run_finish
from apps.core.errors import PayloadTooLarge
from apps.devices.authentication import IsRunner, RunnerTokenAuthentication, runner_of
from apps.devices.services import runner_heartbeat, runner_hello
from apps.results.blocks import block_store
from apps.results.ingest import SampleBatchParser, samples_validate


class RunnerInfoSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100, required=False)
    version = serializers.CharField(max_length=32)
    drivers = serializers.ListField(child=serializers.ChoiceField(choices=["host", "android", "ios"]), max_length=3)
    hostname = serializers.CharField(max_length=200, required=False, allow_blank=True)


class RunnerDeviceSerializer(serializers.Serializer):
    serial = serializers.CharField(max_length=128)
    platform = serializers.ChoiceField(choices=["host", "android", "ios"])
    model = serializers.CharField(max_length=128, required=False, allow_blank=True)
    os_version = serializers.CharField(max_length=64, required=False, allow_blank=True)
    capabilities = serializers.DictField(required=False)


class HelloInputSerializer(serializers.Serializer):
    runner = RunnerInfoSerializer()
    devices = RunnerDeviceSerializer(many=True, max_length=64)  # type: ignore[call-arg]


class DeviceStateSerializer(serializers.Serializer):
    serial = serializers.CharField(max_length=128)
    state = serializers.ChoiceField(choices=["available", "busy"], required=False)
    battery = serializers.FloatField(min_value=0, max_value=100, required=False, allow_null=True)
    temperature = serializers.FloatField(min_value=-40, max_value=150, required=False, allow_null=True)


class RunLeaseRefSerializer(serializers.Serializer):
    run_id = serializers.UUIDField()
    lease_token = serializers.CharField(max_length=64)


class HeartbeatInputSerializer(serializers.Serializer):
    devices = DeviceStateSerializer(many=True, max_length=64)  # type: ignore[call-arg]
    runs = RunLeaseRefSerializer(many=True, required=False, default=list)


class LeaseInputSerializer(serializers.Serializer):
    devices = serializers.ListField(child=serializers.CharField(max_length=128), max_length=64)
    wait_s = serializers.FloatField(min_value=0, max_value=25, default=25)


class SampleListField(serializers.ListField):
    """A list taken as it is: the samples were checked against the contract by msgspec
    while the body was decoded (apps.results.ingest.SampleBatchParser) and are checked
    against the run by samples_validate; a DRF field per sample would cost ~50× more."""

    def to_internal_value(self, data: object) -> list:
        if not isinstance(data, list):
            self.fail("not_a_list", input_type=type(data).__name__)
        return data


class BatchInputSerializer(serializers.Serializer):
    lease_token = serializers.CharField(max_length=64)
    attempt = serializers.IntegerField(min_value=1)
    batch_seq = serializers.IntegerField(min_value=0)
    block = serializers.IntegerField(min_value=0, max_value=1000)
    baseline = serializers.JSONField(required=False, allow_null=True)
    samples = SampleListField(child=serializers.JSONField(), allow_empty=True)


class FinishInputSerializer(serializers.Serializer):
    lease_token = serializers.CharField(max_length=64)
    status = serializers.ChoiceField(choices=["ok", "failed", "infra_error"])
    fingerprint = serializers.JSONField(required=False, allow_null=True)
    link = serializers.JSONField(required=False, allow_null=True)
    error = serializers.CharField(max_length=4000, required=False, allow_null=True, allow_blank=True)


class RunnerAPIView(APIView):
    authentication_classes = [RunnerTokenAuthentication]
    permission_classes = [IsRunner]

    def validated(self, serializer_class: type[serializers.Serializer], request: Request) -> dict:
        serializer = serializer_class(data=request.data)
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)


class HelloView(RunnerAPIView):
    @extend_schema(request=HelloInputSerializer, responses={200: dict}, summary="Runner registers its devices")
    def post(self, request: Request) -> Response:
        data = self.validated(HelloInputSerializer, request)
        runner = runner_of(request)
        devices = runner_hello(runner=runner, info=data["runner"], devices=data["devices"])
        return Response(
            {
                "runner_id": str(runner.id),
                "heartbeat_interval_s": 10,
                "lease_wait_s": settings.RUNNER_LEASE_WAIT_MAX_S,
                "devices": [{"serial": d.serial, "id": str(d.id)} for d in devices],
            }
        )


class HeartbeatView(RunnerAPIView):
    @extend_schema(request=HeartbeatInputSerializer, responses={200: dict}, summary="Device states; extends leases")
    def post(self, request: Request) -> Response:
        data = self.validated(HeartbeatInputSerializer, request)
        runner = runner_of(request)
        runner_heartbeat(runner=runner, devices=data["devices"])
        runs = [{"run_id": str(r["run_id"]), "lease_token": r["lease_token"]} for r in data["runs"]]
        return Response({"commands": heartbeat_extend_leases(runner=runner, runs=runs)})


class LeaseView(RunnerAPIView):
    @extend_schema(request=LeaseInputSerializer, responses={200: dict, 204: None}, summary="Long-poll for work")
    def post(self, request: Request) -> Response:
        data = self.validated(LeaseInputSerializer, request)
        runs = lease_acquire(runner=runner_of(request), serials=data["devices"], wait_s=data["wait_s"])
        if not runs:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response({"runs": runs})


class SamplesView(RunnerAPIView):
    parser_classes = [SampleBatchParser]

    @extend_schema(request=BatchInputSerializer, responses={200: dict}, summary="Upload one block's samples")
    def post(self, request: Request, run_id: str) -> Response:
        batch = request.data
        samples = batch.get("samples") if isinstance(batch, dict) else None
        if isinstance(samples, list) and len(samples) > settings.RUNNER_MAX_BATCH_SAMPLES:
            raise PayloadTooLarge(f"samples: at most {settings.RUNNER_MAX_BATCH_SAMPLES} per batch (one block)")
        data = self.validated(BatchInputSerializer, request)

        def samples_check(arms: set[str]) -> None:
            samples_validate(data["samples"], arms=arms, block=data["block"],
                             contract_error=getattr(batch, "contract_error", None))

        # One transaction: the run locked with its arm labels (one query), the samples
        # checked against them (400), the lease checked (409), the block stored.
        return Response(block_store(runner=runner_of(request), run_id=run_id, batch=data,
                                    samples_check=samples_check))


class FinishView(RunnerAPIView):
    @extend_schema(request=FinishInputSerializer, responses={200: dict}, summary="Report the end of a run")
    def post(self, request: Request, run_id: str) -> Response:
        data = self.validated(FinishInputSerializer, request)
        run = run_finish(runner=runner_of(request), run_id=run_id, report=data)
        return Response({"run_id": str(run.id), "status": run.status})
