"""The readiness gate: battery (with the charging floor), temperature and thermal status,
each with the reason a lab reads on the Devices page; thresholds come from the runner
config and bad ones are refused naming the field. (Target reachability is not the
device's health: test_target_check.py.)"""

import pytest

from latencylab_runner.devices.gate import GateThresholds, health_reason
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
])
def test_bad_thresholds_are_refused_naming_the_field(config, message):
    with pytest.raises(ValueError, match=message):
        GateThresholds.from_config(config)
