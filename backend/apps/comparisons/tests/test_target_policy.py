"""Hosted pools cannot be turned against their host (SSRF; docs/security.md): a comparison whose
customer URLs are, or resolve to, private, loopback, link-local, CGNAT, metadata or
reserved addresses is refused at creation with the field and the reason, and creates
nothing; a private pool may reach them (its runners are the organization's own). The
runner repeats the check at lease time (device-runner/runner/tests/test_target_policy.py); the
end-to-end test here drives the real agent with a name that resolves elsewhere the second
time. Names are answered by a fake resolver: no test sends a packet to these addresses."""

import socket
from copy import deepcopy

import pytest

from apps.comparisons.models import Comparison
from apps.comparisons.services import comparison_plan
from apps.core import addresses
from apps.devices.models import DevicePool
from latencylab_runner import target_policy
from testing.device_farm import runner_client
from testing.host_agent import run_on_host_agent

PUBLIC = "93.184.216.34"
DNS = {
    "api.example.test": [PUBLIC],
    "loopback.example.test": ["127.0.0.1"],
    "private.example.test": ["10.0.0.1"],
    "cgnat.example.test": ["100.64.0.1"],
    "metadata.example.test": ["169.254.169.254"],
    "ula.example.test": ["fd00::1"],
    "loopback6.example.test": ["::1"],
    "mapped.example.test": ["::ffff:127.0.0.1"],
    "benchmark.example.test": ["198.18.0.7"],
}
SPEC = {
    "name": "ssrf",
    "workload": {"kind": "requests", "repetitions": 1, "requests": [{"method": "GET", "path": "/"}]},
    "arms": [{"label": "reference", "protocol": "h2"}, {"label": "mine", "protocol": "h2",
                                                        "endpoint": "https://api.example.test"}],
    "devices": {"pool": "hosted-eu", "platforms": ["host"]},
    "blocks": 2,
}


class FakeResolver:
    """Answers from a table; `rebind` names answer their list one lookup at a time."""

    def __init__(self) -> None:
        self.table = dict(DNS)
        self.rebind: dict[str, list[str]] = {}
        self.lookups: list[str] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        if host in self.rebind:
            answers = self.rebind[host]
            return [answers.pop(0) if len(answers) > 1 else answers[0]]
        if host not in self.table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return self.table[host]


@pytest.fixture
def resolver(monkeypatch):
    fake = FakeResolver()
    monkeypatch.setattr(addresses, "resolve", fake)
    return fake


@pytest.fixture
def hosted(db):
    return DevicePool.objects.create(organization=None, slug="hosted-eu", name="Hosted EU",
                                     kind=DevicePool.Kind.HOSTED)


def spec_with(endpoint=None, url=None, pool="hosted-eu", platforms=("host",)):
    spec = deepcopy(SPEC)
    spec["devices"] = {"pool": pool, "platforms": list(platforms)}
    if endpoint is not None:
        spec["arms"][1]["endpoint"] = endpoint
    if url is not None:
        spec["workload"]["requests"].append({"method": "GET", "url": url})
    return spec


@pytest.mark.django_db
@pytest.mark.parametrize("host, address, reason", [
    ("loopback.example.test", "127.0.0.1", "a loopback address"),
    ("private.example.test", "10.0.0.1", "a private address"),
    ("cgnat.example.test", "100.64.0.1", "a shared (CGNAT) address"),
    ("metadata.example.test", "169.254.169.254", "a cloud metadata address"),
    ("ula.example.test", "fd00::1", "a private address"),
    ("loopback6.example.test", "::1", "a loopback address"),
    ("mapped.example.test", "::ffff:127.0.0.1", "an IPv6 form of 127.0.0.1, a loopback address"),
    ("benchmark.example.test", "198.18.0.7", "a benchmarking (reserved) address"),
])
def test_endpoints_resolving_to_internal_addresses_are_refused_for_hosted_pools(api, hosted, resolver, host,
                                                                                address, reason):
    response = api.post("/api/v1/comparisons", spec_with(endpoint=f"https://{host}"), format="json")
    assert response.status_code == 400, response.content
    assert response.json()["arms"]["1"]["endpoint"] == [
        f"{host} resolves to {address}, {reason}; hosted pools may not reach it (a private pool of your own may)."]
    assert Comparison.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("url, says", [
    ("https://127.0.0.1/x", "127.0.0.1 is a loopback address"),
    ("https://10.0.0.1/x", "10.0.0.1 is a private address"),
    ("https://100.64.0.1/x", "100.64.0.1 is a shared (CGNAT) address"),
    ("https://169.254.169.254/latest/meta-data/", "169.254.169.254 is a cloud metadata address"),
    ("https://[fd00::1]/x", "fd00::1 is a private address"),
    ("https://[::1]/x", "::1 is a loopback address"),
    ("https://[::ffff:127.0.0.1]/x", "::ffff:127.0.0.1 is an IPv6 form of 127.0.0.1, a loopback address"),
    ("https://2130706433/x", "2130706433 means 127.0.0.1, a loopback address"),
    ("https://0177.0.0.1/x", "0177.0.0.1 means 127.0.0.1, a loopback address"),
    ("https://0x7f.1/x", "0x7f.1 means 127.0.0.1, a loopback address"),
])
def test_address_literals_in_every_form_are_refused_without_a_lookup(api, hosted, resolver, url, says):
    response = api.post("/api/v1/comparisons", spec_with(url=url), format="json")
    assert response.status_code == 400, response.content
    [message] = response.json()["workload"]["requests"]["1"]["url"]
    assert message.startswith(f"{says}; hosted pools may not reach it")
    assert resolver.lookups == ["api.example.test"], "literals are judged as written, never looked up"
    assert Comparison.objects.count() == 0


@pytest.mark.django_db
def test_absolute_object_urls_and_unresolvable_names_are_refused(api, hosted, resolver):
    series = spec_with()
    series["workload"] = {"kind": "series", "periods": [2], "repetitions": 1,
                          "object_paths": ["/a.jpg", "https://metadata.example.test/b.jpg"]}
    response = api.post("/api/v1/comparisons", series, format="json")
    assert response.status_code == 400, response.content
    assert "169.254.169.254, a cloud metadata address" in response.json()["workload"]["object_paths"]["1"][0]
    response = api.post("/api/v1/comparisons", spec_with(endpoint="https://nowhere.example.test"), format="json")
    assert response.status_code == 400, response.content
    assert "cannot resolve nowhere.example.test" in response.json()["arms"]["1"]["endpoint"][0]
    assert Comparison.objects.count() == 0


@pytest.mark.django_db
def test_the_same_spec_runs_on_a_private_pool_by_the_organizations_choice(api, pool, hosted, resolver):
    spec = spec_with(endpoint="https://private.example.test", url="https://[::1]/x", pool="local")
    response = api.post("/api/v1/comparisons", spec, format="json")
    assert response.status_code == 201, response.content
    assert resolver.lookups == [], "a private pool's targets are not looked up at creation"


@pytest.mark.django_db
def test_public_endpoints_on_hosted_pools_are_accepted_and_leased_with_the_pool_kind(api, pool, hosted, resolver):
    created = api.post("/api/v1/comparisons", spec_with(), format="json")
    assert created.status_code == 201, created.content
    assert resolver.lookups == ["api.example.test"]
    private = api.post("/api/v1/comparisons", spec_with(pool="local"), format="json")
    assert private.status_code == 201, private.content
    for comparison in (created, private):
        comparison_plan(comparison_id=comparison.json()["id"])
    for lab_pool, kind in ((hosted, "hosted"), (pool, "private")):
        lab = runner_client(lab_pool, f"lab-{kind}", [{"serial": f"host-{kind}", "platform": "host", "model": "m",
                                                       "os_version": "1"}])
        leased = lab.post("/api/runner/v1/lease", {"devices": [f"host-{kind}"], "wait_s": 0}, format="json")
        assert leased.status_code == 200, leased.content
        assert leased.json()["runs"][0]["pool_kind"] == kind


@pytest.mark.django_db
def test_hosted_customer_endpoints_are_not_run_on_iphones(api, hosted, resolver):
    response = api.post("/api/v1/comparisons", spec_with(platforms=("host", "ios")), format="json")
    assert response.status_code == 400, response.content
    assert "iOS harness cannot be held to the address checked" in response.json()["devices"]["platforms"][0]
    reference_only = spec_with(platforms=("ios",))
    reference_only["arms"][1].pop("endpoint")
    response = api.post("/api/v1/comparisons", reference_only, format="json")
    assert "devices" not in response.json(), "the reference target is the runner's own: no restriction"


@pytest.mark.django_db(transaction=True)
def test_a_name_rebound_after_creation_is_refused_by_the_runner_at_lease_time(live_server, api, hosted, resolver,
                                                                              monkeypatch):
    """The backend's lookup at creation says public; the runner's own lookup at lease time
    (the second one) says 10.0.0.1: the real agent ends the run failed, naming the field
    and the policy, and no block is stored."""
    monkeypatch.setattr(target_policy, "resolve", resolver)  # one DNS for the backend and the runner
    resolver.rebind["rebind.example.test"] = [PUBLIC, "10.0.0.1"]
    created = api.post("/api/v1/comparisons", spec_with(endpoint="https://rebind.example.test"), format="json")
    assert created.status_code == 201, created.content
    assert run_on_host_agent(live_server.url, hosted, [created.json()["id"]], name="hosted-lab", timeout_s=60)
    run = Comparison.objects.get(pk=created.json()["id"]).runs.get()
    assert (run.status, run.error_kind) == ("failed", "test_failure")
    assert "arms[1].endpoint: rebind.example.test resolves to 10.0.0.1, a private address; blocked by hosted-pool " \
           "policy" in run.error
    assert run.next_block == 0
    assert resolver.lookups == ["rebind.example.test", "rebind.example.test"]
