import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
application = get_wsgi_application()
# The URLconf, and with it every view, serializer and service module, imported as the worker
# starts rather than inside its first request, which otherwise waited ~0.4 s for them (a
# runner's first upload after a deploy, the first dashboard load).
get_resolver().url_patterns  # noqa: B018 — evaluated for its imports
