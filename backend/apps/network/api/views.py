from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import IsOrganizationAdminForWrites, organization_of
from apps.core.query_params import NoParameters, query_of

from ..selectors import network_profiles_listing
from ..services import network_profile_create
from ..validation import LinkSpec, link_spec_bounds


class NetworkProfileOutputSerializer(serializers.Serializer):
    name = serializers.CharField()
    built_in = serializers.BooleanField()
    origin = serializers.CharField()
    description = serializers.CharField()
    down_kbit = serializers.FloatField(allow_null=True)
    up_kbit = serializers.FloatField(allow_null=True)
    rtt_ms = serializers.FloatField()
    loss_pct = serializers.FloatField()
    spec = serializers.JSONField(allow_null=True)


class NetworkProfileInputSerializer(serializers.Serializer):
    name = serializers.SlugField(max_length=64)
    description = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")
    spec = LinkSpec()


class FieldBoundsSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=["number", "integer", "boolean", "choice"])
    required = serializers.BooleanField()  # type: ignore[assignment]  # a declared field, not Field.required
    nullable = serializers.BooleanField()
    minimum = serializers.FloatField(required=False)
    maximum = serializers.FloatField(required=False)
    default = serializers.JSONField(required=False)
    choices = serializers.ListField(child=serializers.CharField(), required=False)
    help = serializers.CharField(required=False)


class NetworkProfileBoundsSerializer(serializers.Serializer):
    direction = serializers.DictField(child=FieldBoundsSerializer(), help_text="each of `down` and `up`")
    gilbert = serializers.DictField(child=FieldBoundsSerializer(), help_text="a direction's Gilbert-Elliott loss")
    blackout = serializers.DictField(child=FieldBoundsSerializer(), help_text="one entry of `blackouts`")
    max_blackouts = serializers.IntegerField()
    seed = FieldBoundsSerializer()


class NetworkProfileListCreateView(APIView):
    permission_classes = [IsOrganizationAdminForWrites]

    @extend_schema(responses={200: NetworkProfileOutputSerializer(many=True)},
                   summary="Built-in and this organization's network profiles")
    def get(self, request: Request) -> Response:
        query_of(request, NoParameters)
        return Response(network_profiles_listing(organization=organization_of(request)))

    @extend_schema(request=NetworkProfileInputSerializer, responses={201: NetworkProfileOutputSerializer},
                   summary="Create a custom network profile (owners and admins)")
    def post(self, request: Request) -> Response:
        body = NetworkProfileInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        profile = network_profile_create(organization=organization_of(request), name=body.validated_data["name"],
                                         description=body.validated_data["description"],
                                         spec=body.initial_data.get("spec"))
        listing = network_profiles_listing(organization=organization_of(request))
        return Response(next(p for p in listing if p["name"] == profile.name), status=status.HTTP_201_CREATED)


class NetworkProfileBoundsView(APIView):
    @extend_schema(responses={200: NetworkProfileBoundsSerializer},
                   summary="The bounds of a custom profile's spec: per field its type, minimum, maximum, default, "
                           "choices (what POST /api/v1/network-profiles accepts)")
    def get(self, request: Request) -> Response:
        return Response(link_spec_bounds())
