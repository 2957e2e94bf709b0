"""The dashboard's home page in one request (readers/home.py)."""

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import organization_of

from ..readers.home import home_summary
from .trend_serializers import HomeSerializer


class HomeView(APIView):
    @extend_schema(responses={200: HomeSerializer}, summary="Home: recent comparisons with their headline verdict "
                   "and a sparkline, the ones in flight with progress, and the device farm")
    def get(self, request: Request) -> Response:
        return Response(HomeSerializer(home_summary(organization=organization_of(request))).data)
