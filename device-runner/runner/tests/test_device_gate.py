"""The readiness gate: battery (with the charging floor), temperature and thermal status
(Android's severities and iOS's thermal states, each on its own scale), each with the
reason a lab reads on the Devices page; the same limits on what the phone's harness reports
of itself at a block; thresholds and the lab networks come from the runner config and bad
ones are refused naming the field. (Target reachability is not the device's health:
test_target_check.py; the phone's readiness report: test_readiness.py.)"""

import pytest
from latencylab_contract import load_schema

from latencylab_runner.devices.gate import (
    IOS_THERMAL_STATES,
    THERMAL_SEVERITY,
    GateThresholds,
    health_reason,
    reported_health_reason,
)
from latencylab_runner.devices.model import DeviceStatus


def phone(**kw):
    return DeviceStatus(serial="R5CT1234", platform="android", **kw)


LIMITS = GateThresholds()


def test_healthy_device_passes():
    assert health_reason(phone(battery=87.0, charging=False, temperature=31.5, thermal_status="none"), LIMITS) is None


def test_battery_below_the_gate():
    assert health_reason(phone(battery=32.0, charging=False), LIMITS) == "battery 32 % < 50 %"
    assert health_reason(phone(battery=50.0, charging=False), LIMITS) is None


def test_charging_device_may_start_lower_but_not_below_the_floor():
    assert health_reason(phone(battery=32.0, charging=True), LIMITS) is None
    assert health_reason(phone(battery=19.5, charging=True), LIMITS) == "battery 19.5 % < 20 % while charging"


def test_overheating_and_throttling():
    assert health_reason(phone(battery=90.0, temperature=36.1), LIMITS) == "temperature 36.1 °C > 36 °C"
    assert health_reason(phone(battery=90.0, temperature=36.0), LIMITS) is None
    assert health_reason(phone(battery=90.0, thermal_status="light"), LIMITS) is None
    assert health_reason(phone(battery=90.0, thermal_status="moderate"), LIMITS) == \
        "thermal status moderate (throttling) > light"


def test_unknown_readings_do_not_hold_a_device():
    assert health_reason(phone(), LIMITS) is None


def test_thresholds_are_configurable():
    limits = GateThresholds.from_config({"min_battery_pct": 80, "max_temperature_c": 40, "max_thermal_status": "none"})
    assert health_reason(phone(battery=75.0, charging=False), limits) == "battery 75 % < 80 %"
    assert health_reason(phone(battery=90.0, temperature=39.0), limits) is None
    assert health_reason(phone(battery=90.0, thermal_status="light"), limits) == \
        "thermal status light (throttling) > none"


@pytest.mark.parametrize("config, message", [
    ({"min_battery_pct": 120}, r"gate\.min_battery_pct: must be a number from 0 to 100, got 120"),
    ({"max_temperature_c": "hot"}, r"gate\.max_temperature_c: must be a number"),
    ({"max_thermal_status": "warm"}, r"gate\.max_thermal_status: must be one of none, light"),
    ({"min_batery_pct": 50}, r"gate\.min_batery_pct: unknown setting"),
    ({"max_ios_thermal_state": "severe"}, r"gate\.max_ios_thermal_state: must be one of nominal, fair, serious"),
    ({"lab_networks": "10.0.0.0/8"}, r"gate\.lab_networks: must be a list of at most 16 CIDR ranges"),
    ({"lab_networks": ["10.0.0.0/8", "lab-wifi"]}, r"gate\.lab_networks\[1\]: must be a CIDR range"),
    ({"lab_networks": ["10.0.0.300/8"]}, r"gate\.lab_networks\[0\]: must be a CIDR range"),
])
def test_bad_thresholds_are_refused_naming_the_field(config, message):
    with pytest.raises(ValueError, match=message):
        GateThresholds.from_config(config)


def iphone(**kw):
    return DeviceStatus(serial="00008130-001A2C3E0E38001C", platform="ios", **kw)


def test_ios_thermal_states_on_their_own_scale():
    """`serious` is where iOS cuts performance; Android's `critical` and iOS's share a name, not a scale."""
    assert health_reason(iphone(thermal_status="fair"), LIMITS) is None
    assert health_reason(iphone(thermal_status="serious"), LIMITS) == "thermal status serious (throttling) > fair"
    assert health_reason(iphone(thermal_status="critical"), LIMITS) == "thermal status critical (throttling) > fair"
    lenient = GateThresholds.from_config({"max_ios_thermal_state": "serious", "max_thermal_status": "critical"})
    assert health_reason(iphone(thermal_status="serious"), lenient) is None
    assert health_reason(iphone(thermal_status="critical"), lenient) == "thermal status critical (throttling) > serious"
    assert health_reason(phone(thermal_status="critical"), lenient) is None
    # A name of the other platform holds nothing (a reading that cannot be placed on the scale).
    assert health_reason(iphone(thermal_status="severe"), LIMITS) is None


def test_what_the_phone_reports_at_a_block_is_held_to_the_same_limits():
    assert reported_health_reason({"platform": "ios", "thermal_status": "nominal", "battery": 80.0,
                                   "charging": True}, LIMITS) is None
    assert reported_health_reason({"platform": "ios", "thermal_status": "serious"}, LIMITS) == \
        "the phone reported thermal status serious (throttling) > fair at the block"
    severe = {"platform": "android", "thermal_status": "severe", "temperature": 33.0}
    assert reported_health_reason(severe, LIMITS) == \
        "the phone reported thermal status severe (throttling) > light at the block"
    assert reported_health_reason({"platform": "android", "battery": 12.0, "charging": False}, LIMITS) == \
        "the phone reported battery 12 % < 50 % at the block"
    assert reported_health_reason({"platform": "android"}, LIMITS) is None  # an older harness reports none of it


def test_lab_networks_are_read_in_canonical_form():
    limits = GateThresholds.from_config({"lab_networks": ["192.168.10.7/24", "FD00:1AB::/64", "192.168.10.0/24"]})
    assert limits.lab_networks == ("192.168.10.0/24", "fd00:1ab::/64")
    assert GateThresholds().lab_networks == ()


def test_the_gate_knows_the_thermal_names_the_contract_allows():
    """Drift: the names the gate places on its scales are the ones result.schema.json allows
    per platform (the harnesses write them, the gate reads them)."""
    allowed = {}
    for rule in load_schema("result")["$defs"]["fingerprint"]["allOf"]:
        platform = rule["if"]["properties"]["platform"]["const"]
        names = rule["then"]["properties"]["thermal_status"]
        allowed[platform] = tuple(n for n in names.get("enum", [names.get("const")]) if n is not None)
    assert allowed == {"android": THERMAL_SEVERITY, "ios": IOS_THERMAL_STATES, "host": ()}
