import pytest
from rest_framework.test import APIClient

from apps.accounts.services import api_token_create
from apps.webhooks.models import Webhook
from apps.webhooks.services import webhook_create


@pytest.mark.django_db
def test_create_shows_the_secret_once_and_list_never(api):
    created = api.post("/api/v1/webhooks", {"url": "https://ci.example.com/hooks"}, format="json")
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["secret"].startswith("whsec_")
    assert len(body["secret"]) > 40
    assert body["events"] == ["comparison.finished", "comparison.failed"]
    assert body["active"] is True
    assert Webhook.objects.get(pk=body["id"]).secret == body["secret"]
    listed = api.get("/api/v1/webhooks").json()
    assert listed["count"] == 1
    assert "secret" not in listed["results"][0]
    assert listed["results"][0]["url"] == "https://ci.example.com/hooks"


@pytest.mark.django_db
@pytest.mark.parametrize("body, field, message", [
    ({"url": "http://ci.example.com/hooks"}, "url", "https://"),
    ({"url": "ftp://ci.example.com/hooks"}, "url", "https://"),
    ({"url": "https://10.1.2.3/hooks"}, "url", "private"),
    ({"url": "https://169.254.169.254/latest"}, "url", "private"),
    ({"url": "https://user:pw@ci.example.com/"}, "url", "credentials"),
    ({"url": "https://ci.example.com", "events": ["comparison.exploded"]}, "events", "not a valid choice"),
    ({"url": "https://ci.example.com", "events": []}, "events", "at least 1"),
    ({}, "url", "required"),
])
def test_bad_webhooks_get_field_errors_and_create_nothing(api, body, field, message):
    response = api.post("/api/v1/webhooks", body, format="json")
    assert response.status_code == 400, response.content
    assert message in str(response.json()[field])
    assert Webhook.objects.count() == 0


@pytest.mark.django_db
def test_http_to_localhost_is_allowed_for_development(api):
    for url in ("http://localhost:9000/hook", "http://127.0.0.1:9000/hook", "http://[::1]:9000/hook"):
        assert api.post("/api/v1/webhooks", {"url": url}, format="json").status_code == 201, url


@pytest.mark.django_db
def test_delete_and_other_organizations_webhook_answers_404(api, org, other_org):
    theirs, _ = webhook_create(organization=other_org, url="https://globex.example.com/h", events=["comparison.failed"])
    mine, _ = webhook_create(organization=org, url="https://acme.example.com/h", events=["comparison.finished"])
    assert api.delete(f"/api/v1/webhooks/{theirs.id}").status_code == 404
    assert [w["id"] for w in api.get("/api/v1/webhooks").json()["results"]] == [str(mine.id)]
    assert api.delete(f"/api/v1/webhooks/{mine.id}").status_code == 204
    assert api.delete(f"/api/v1/webhooks/{mine.id}").status_code == 404
    assert Webhook.objects.filter(pk=theirs.pk).exists()


@pytest.mark.django_db
def test_read_only_token_cannot_register(org):
    _, secret = api_token_create(organization=org, name="ro", scopes=["read"])
    reader = APIClient()
    reader.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert reader.get("/api/v1/webhooks").status_code == 200
    assert reader.post("/api/v1/webhooks", {"url": "https://ci.example.com"}, format="json").status_code == 403
