from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from apps.core.throttling import ClientRateThrottle, SignInRateThrottle


# Where people get in without a credential: sign-in, sign-up, invitation links, password
# reset. Open to anyone, so limited per client IP twice: the API's anonymous rate and the
# sign-in rate (password guessing, mail floods). A comment, not a docstring: drf-spectacular
# would publish a docstring as every subclass's description.
class AnonymousEntryView(APIView):
    permission_classes = [AllowAny]
    throttle_classes = [ClientRateThrottle, SignInRateThrottle]
