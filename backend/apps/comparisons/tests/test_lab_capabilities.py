"""What a device's lab cannot do is refused at submit, naming the field, when no device of a
selected platform in the pool can do it (apps.comparisons.lab_capabilities), and passed over
at lease time where some can: a profiled spec on devices whose runner cannot shape them (a
Mac lab, a Linux lab whose shaping probe failed), an Android h3 arm against a reference target
whose certificate is private (Chromium's QUIC refuses it), an Android h3 arm with its own
ca_bundle."""

import pytest

from apps.comparisons.models import Comparison
from testing.device_farm import android_comparison, heartbeat, lease, leased_run, phone, runner_client

H2_H3 = [{"label": "h2", "protocol": "h2"}, {"label": "h3", "protocol": "h3"}]
SMALL = {"preset": "mid-image-series", "arms": H2_H3, "baseline_arm": "h2",
         "workload": {"kind": "series", "periods": [3], "repetitions": 2, "concurrency": "sequential"},
         "blocks": 2}
PROTOCOLS = ["h1c", "h1", "h2", "h3", "grpc"]
NO_CAP = ("the runner lacks CAP_NET_ADMIN: `ip link add llab-p1 type ifb` answered EPERM (Operation not permitted)")
MAC = "macOS has no tc/netem: a Mac lab cannot shape its phones"
PRIVATE = "target.cert_file is not set: the reference target serves the runner's private CA"


def shaping(can: bool, reason: str | None = None) -> dict:
    return {"can_shape": can, **({"cannot_shape_reason": reason} if reason else {})}


def iphone(serial: str, **capabilities) -> dict:
    return phone(serial, model="iPhone 15 Pro", platform="ios",
                 capabilities={"protocols": ["h2", "h3", "grpc"], **capabilities})


def pixel(serial: str, **capabilities) -> dict:
    return phone(serial, capabilities={"protocols": PROTOCOLS, **capabilities})


def submit(api, **spec):
    return api.post("/api/v1/comparisons", {"name": "lab", **SMALL, **spec}, format="json")


@pytest.mark.django_db
def test_a_profiled_spec_is_refused_where_no_device_of_a_platform_can_be_shaped(api, pool):
    runner_client(pool, "mac-mini-3", [iphone("IPH1", **shaping(False, MAC))])
    runner_client(pool, "linux-1", [pixel("PIX1", **shaping(True))])
    response = submit(api, network_profiles=["transatlantic"], devices={"platforms": ["android", "ios"]})
    assert response.status_code == 400, response.content
    (message,) = response.json()["network_profiles"]
    assert message.startswith("ios devices of pool 'local' cannot be shaped, so no run under 'transatlantic' "
                              "could be measured: iPhone 15 Pro (IPH1) on runner mac-mini-3: macOS has no tc/netem")
    assert message.endswith('Allowed here: network_profiles ["none"], or drop ios.')
    assert not Comparison.objects.exists()
    # Android alone, or profile none everywhere, is fine.
    assert submit(api, network_profiles=["transatlantic"], devices={"platforms": ["android"]}).status_code == 201
    assert submit(api, network_profiles=["none"], devices={"platforms": ["android", "ios"]}).status_code == 201


@pytest.mark.django_db
def test_the_probe_s_reason_is_quoted_and_a_runner_that_says_nothing_is_trusted(api, pool):
    runner_client(pool, "linux-1", [pixel("PIX1", **shaping(False, NO_CAP))])
    refused = submit(api, network_profiles=["none", "transatlantic"], devices={"platforms": ["android"]})
    assert refused.status_code == 400, refused.content
    assert f"Pixel 8 (PIX1) on runner linux-1: {NO_CAP}." in refused.json()["network_profiles"][0]
    runner_client(pool, "old-runner", [pixel("OLD1")])  # reports no can_shape: trusted
    assert submit(api, network_profiles=["transatlantic"], devices={"platforms": ["android"]}).status_code == 201


@pytest.mark.django_db
def test_android_h3_against_a_private_reference_target_is_refused_naming_the_arm(api, pool):
    runner_client(pool, "linux-1", [pixel("PIX1", target_certificate="private", target_certificate_reason=PRIVATE)])
    response = submit(api, devices={"platforms": ["android"]})
    assert response.status_code == 400, response.content
    (message,) = response.json()["arms"]["1"]["protocol"]
    assert message.startswith("android devices of pool 'local' cannot measure arm 'h3' (h3) against the lab's "
                              f"reference target: its certificate is private (Pixel 8 (PIX1) on runner linux-1: "
                              f"{PRIVATE}). Android measures h3 through Cronet")
    assert "Allowed: protocols h1c, h1, h2, grpc on android here; an h3 endpoint of your own; or drop android" \
        in message
    # An h3 arm to the customer's own endpoint is not the lab's certificate; h2 alone is fine too.
    own = [{"label": "h2", "protocol": "h2"}, {"label": "h3", "protocol": "h3", "endpoint": "https://example.com/"}]
    assert submit(api, arms=own, devices={"platforms": ["android"]}).status_code == 201
    assert submit(api, arms=H2_H3[:1], devices={"platforms": ["android"]}).status_code == 201


@pytest.mark.django_db
def test_an_android_h3_arm_with_its_own_ca_bundle_is_refused_whatever_the_pool(api, pool):
    pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    arms = [{"label": "h2", "protocol": "h2"},
            {"label": "h3", "protocol": "h3", "endpoint": "https://api.example.com/", "ca_bundle": pem}]
    response = submit(api, arms=arms, devices={"platforms": ["android"]})
    assert response.status_code == 400, response.content
    (message,) = response.json()["arms"]["1"]["ca_bundle"]
    assert message.startswith("arm 'h3' (h3) brings its own ca_bundle: Android measures h3 through Cronet")
    assert submit(api, arms=arms, devices={"platforms": ["host"]}).status_code == 201


@pytest.mark.django_db
def test_devices_that_cannot_are_passed_over_where_others_can(org, pool):
    lab = runner_client(pool, "linux-1", [
        pixel("NOSHAPE1", **shaping(False, NO_CAP)), pixel("NOSHAPE2", **shaping(False, NO_CAP)),
        pixel("PRIVATE", target_certificate="private", target_certificate_reason=PRIVATE),
        pixel("ABLE", **shaping(True), target_certificate="public")])
    h3 = android_comparison(org, arms=H2_H3, baseline_arm="h2")
    assert lease(lab, ["PRIVATE"]).status_code == 204  # h3 against its private target: never
    assert leased_run(lab, ["NOSHAPE1"])["run_id"] == str(h3.runs.get().pk)  # no profile: shaping not needed
    profiled = android_comparison(org, arms=H2_H3[:1], network_profiles=["transatlantic"])
    assert lease(lab, ["NOSHAPE2"]).status_code == 204
    assert leased_run(lab, ["ABLE"])["run_id"] == str(profiled.runs.get().pk)


@pytest.mark.django_db
def test_a_run_whose_devices_lost_the_capability_since_the_submit_says_why_it_waits(org, pool, api):
    lab = runner_client(pool, "linux-1", [pixel("PIX1")])  # says nothing: trusted at submit
    comparison = android_comparison(org, arms=H2_H3[:1], network_profiles=["transatlantic"])
    # Restarted without CAP_NET_ADMIN: its probe failed, and its next heartbeat says so.
    assert heartbeat(lab, [pixel("PIX1", **shaping(False, NO_CAP))]).status_code == 200
    assert lease(lab, ["PIX1"]).status_code == 204
    (run,) = api.get(f"/api/v1/comparisons/{comparison.id}").json()["runs"]
    assert run["waiting_for"] == ("no android device of pool 'local' can run it: Pixel 8 (PIX1) on runner linux-1 "
                                  f"cannot shape 'transatlantic': {NO_CAP}")
