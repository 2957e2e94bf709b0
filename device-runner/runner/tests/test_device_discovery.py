"""Device discovery from the tools' exact formats: adb's `devices -l` lines (including
unauthorized, offline and no-permissions), getprop, `dumpsys battery` and `dumpsys
thermalservice`; libimobiledevice's `idevice_id -l`, ideviceinfo's key/value text and
lockdown errors, idevicediagnostics' XML plist. Parsers are checked on the captures from
the reference sources, then the whole discovery runs through the real adb client against
the fake adb server and through the fake libimobiledevice tools."""

import pytest
from device_lab import scenario

from latencylab_runner.devices.android import (
    Adb,
    AndroidDevices,
    parse_battery,
    parse_devices,
    parse_thermal_status,
)
from latencylab_runner.devices.gate import GateThresholds
from latencylab_runner.devices.ios import (
    IDeviceTools,
    IosDevices,
    lockdown_state,
    parse_ioreg_temperature,
    parse_key_values,
    parse_udids,
)
from latencylab_runner.devices.model import STAND_IN_ANDROID_PROP, STAND_IN_IOS_KEY
from latencylab_runner.devices.tools import ToolError, run_tool

# adb docs/dev/adb_wifi.md, verbatim (TAB separator).
SHORT_FORM = "List of devices attached\nadb-43081FDAS000VS-QXjCrW._adb-tls-connect._tcp\tdevice\n\n"
# Assembled from transport.cpp's format (%-22s %s, then fields; transport_id last).
LONG_FORM = (
    "List of devices attached\n"
    "0A141FDD40091B         device usb:1-4 product:sunfish model:Pixel_4a device:sunfish transport_id:3\n"
    "R58M41ABCDE            unauthorized usb:1-3 transport_id:4\n"
    "emulator-5554          device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 device:emu64x "
    "transport_id:1\n"
    "192.168.1.20:5555      offline transport_id:5\n"
    "0B0C                   no permissions (user in plugdev group; are your udev rules wrong?); "
    "see [http://developer.android.com/tools/device.html] usb:1-5 transport_id:6\n"
    "\n"
)
# skia-buildbot impl_test.go, verbatim (the fixture stops after voltage).
SKIA_BATTERY = """Current Battery Service state:
  AC powered: true
  USB powered: false
  Wireless powered: false
  Max charging current: 1500000
  Max charging voltage: 5000000
  Charge counter: 2448973
  status: 2
  health: 2
  present: true
  level: 9
  scale: 100
  voltage: 4248
"""
SKIA_THERMAL = """IsStatusOverride: false
ThermalEventListeners:
\tcallbacks: 3
\tkilled: false
\tbroadcasts count: -1
ThermalStatusListeners:
\tcallbacks: 1
\tkilled: false
\tbroadcasts count: -1
Thermal Status: 0
Cached temperatures:
\tTemperature{mValue=32.401, mType=3, mName=mb-therm-monitor, mStatus=0}
\tTemperature{mValue=46.100002, mType=0, mName=cpu0-silver-usr, mStatus=0}
HAL Ready: true
HAL connection:
\tThermalHAL 2.0 connected: yes
"""
# hive-ci/device_api-ios battery_spec.rb, verbatim.
HIVE_BATTERY = """BatteryCurrentCapacity: 70
BatteryIsCharging: true
ExternalChargeCapable: true
ExternalConnected: true
FullyCharged: false
GasGaugeCapability: true
HasBattery: true
"""
# libplist out-limd.c shape: a nested dict's first key on the parent's line, arrays indented.
LIMD = "BatteryCurrentCapacity: 87\nNested: A: x\n B: 2\nArr[2]:\n 0: arm64\n 1: armv7\nStr: iPhone14,2\n"


def test_devices_long_form_every_state():
    devices = {d.serial: d for d in parse_devices(LONG_FORM)}
    assert list(devices) == ["0A141FDD40091B", "R58M41ABCDE", "emulator-5554", "192.168.1.20:5555", "0B0C"]
    pixel = devices["0A141FDD40091B"]
    assert (pixel.state, pixel.usb, pixel.product, pixel.model, pixel.device, pixel.transport_id) == \
        ("device", "1-4", "sunfish", "Pixel_4a", "sunfish", 3)
    assert devices["R58M41ABCDE"].state == "unauthorized"
    assert devices["R58M41ABCDE"].model is None
    assert devices["192.168.1.20:5555"].state == "offline"
    assert devices["192.168.1.20:5555"].transport_id == 5
    assert devices["0B0C"].state.startswith("no permissions (user in plugdev group; are your udev rules wrong?)")
    assert devices["0B0C"].usb == "1-5"


def test_devices_short_form_and_empty_list():
    assert [(d.serial, d.state) for d in parse_devices(SHORT_FORM)] == \
        [("adb-43081FDAS000VS-QXjCrW._adb-tls-connect._tcp", "device")]
    assert parse_devices("List of devices attached\n\n") == []
    assert parse_devices("* daemon not running; starting now at tcp:5037\n* daemon started successfully\n"
                         "List of devices attached\n\n") == []


def test_long_serial_is_not_truncated():
    line = "adb-43081FDAS000VS-QXjCrW._adb-tls-connect._tcp device product:x model:Pixel_8 device:y transport_id:9\n"
    device, = parse_devices("List of devices attached\n" + line + "\n")
    assert device.serial == "adb-43081FDAS000VS-QXjCrW._adb-tls-connect._tcp"
    assert device.model == "Pixel_8"


def test_battery_capture_and_units():
    reading = parse_battery(SKIA_BATTERY)
    assert (reading.level_pct, reading.plugged, reading.temperature_c, reading.status) == (9.0, True, None, 2)
    newer = SKIA_BATTERY + "  temperature: 281\n  technology: Li-ion\n  Charging state: 1\n  Charging policy: 1\n"
    assert parse_battery(newer).temperature_c == 28.1
    unplugged = SKIA_BATTERY.replace("AC powered: true", "AC powered: false").replace("scale: 100", "scale: 50")
    assert parse_battery(unplugged).plugged is False
    assert parse_battery(unplugged).level_pct == 18.0
    stopped = "Current Battery Service state:\n  (UPDATES STOPPED -- use 'reset' to restart)\n  level: 55\n"
    assert parse_battery(stopped).level_pct == 55.0


def test_thermal_status_names_and_unknowns():
    assert parse_thermal_status(SKIA_THERMAL) == "none"
    assert parse_thermal_status(SKIA_THERMAL.replace("Thermal Status: 0", "Thermal Status: 3")) == "severe"
    assert parse_thermal_status(SKIA_THERMAL.replace("Thermal Status: 0", "Thermal Status: -2147483648")) is None
    assert parse_thermal_status("") is None  # before Android 10: "Can't find service" on stderr only


def test_libimobiledevice_formats():
    assert parse_udids("12345678\n23451234\n") == ["12345678", "23451234"]
    assert parse_udids("") == []
    assert parse_udids("00008130-001A (USB)\n00008130-001A (Network)\n") == ["00008130-001A", "00008130-001A"]
    battery = parse_key_values(HIVE_BATTERY)
    assert battery["BatteryCurrentCapacity"] == "70"
    assert battery["BatteryIsCharging"] == "true"
    assert parse_key_values(LIMD) == {"BatteryCurrentCapacity": "87", "Nested": "A: x", "Str": "iPhone14,2"}


def test_lockdown_errors_new_and_old_wording():
    assert lockdown_state("ERROR: Could not connect to lockdownd: Pairing dialog response pending (-19)")[0] == \
        "unauthorized"
    assert lockdown_state("ERROR: Could not connect to lockdownd, error code -17")[0] == "unauthorized"
    assert lockdown_state("ERROR: Could not connect to lockdownd: Receive timeout (-7)")[0] == "offline"
    assert lockdown_state("ERROR: Device X not found!") is None


def test_ioreg_temperature_in_hundredths():
    xml = ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
           '"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">\n<dict>\n\t<key>IORegistry</key>'
           '\n\t<dict>\n\t\t<key>Temperature</key>\n\t\t<integer>2911</integer>\n\t\t<key>IsCharging</key>\n\t\t<true/>'
           '\n\t</dict>\n</dict>\n</plist>\n\n')
    assert parse_ioreg_temperature(xml) == 29.11
    assert parse_ioreg_temperature("ERROR: Unable to retrieve IORegistry from device.") is None


# -- through the real adb client and the fake tools -----------------------------------

def test_android_discovery_through_the_real_adb_client(lab):
    hot = scenario.android_device("HOT1", model="Galaxy S23", temperature_tenths=391, thermal_status=2, level=95)
    # A phone as a real one answers: without the simulator's system property.
    unmarked = scenario.android_device("REAL1")
    del unmarked["props"][scenario.STAND_IN_ANDROID_PROP]
    lab.set(android=[
        scenario.android_device("R5CT1234", level=87, plugged=True),
        {"serial": "R58M41ABCDE", "state": "unauthorized", "usb": "1-3"},
        {"serial": "192.168.1.20:5555", "state": "offline"},
        {"serial": "0B0C", "state": "no permissions (user in plugdev group; are your udev rules wrong?); see "
                                    "[http://developer.android.com/tools/device.html]", "usb": "1-5"},
        hot,
        scenario.android_device("OLD9", release="9", sdk=28, thermal_status=None, level=30, plugged=False),
        unmarked,
    ])
    found = {d.serial: d for d in AndroidDevices(Adb(), GateThresholds()).discover()}
    pixel = found["R5CT1234"]
    assert (pixel.platform, pixel.model, pixel.os_version, pixel.state) == ("android", "Pixel 8", "14", "available")
    assert (pixel.battery, pixel.charging, pixel.temperature, pixel.thermal_status) == (87.0, True, 31.5, "none")
    assert pixel.capabilities["sdk"] == 34
    assert pixel.fingerprint["manufacturer"] == "Google"
    assert pixel.fingerprint["build"] == "AP2A.240805.005"
    # The simulator's phones say what they are (the service marks them as the JVM stand-in); a real one does not.
    assert STAND_IN_ANDROID_PROP == scenario.STAND_IN_ANDROID_PROP
    assert pixel.fingerprint["stand_in"] == scenario.STAND_IN == "jvm"
    assert "stand_in" not in found["REAL1"].fingerprint
    assert found["REAL1"].state == "available"
    assert found["R58M41ABCDE"].state == "unauthorized"
    assert "authorization" in found["R58M41ABCDE"].reason
    assert found["192.168.1.20:5555"].state == "offline"
    assert found["0B0C"].state == "offline"
    assert "no permissions" in found["0B0C"].reason
    assert found["HOT1"].state == "not_ready"
    assert found["HOT1"].reason == "temperature 39.1 °C > 36 °C"
    old = found["OLD9"]
    assert old.thermal_status is None
    assert old.state == "not_ready"
    assert old.reason == "battery 30 % < 50 %"
    # Every descriptor carries the contract's keys.
    assert set(pixel.descriptor()) == {"serial", "platform", "model", "os_version", "capabilities", "state",
                                       "reason", "battery", "charging", "temperature", "thermal_status",
                                       "fingerprint"}


def test_a_device_without_serial_is_not_reported(lab):
    lab.set(android=[{"serial": "(no serial number)", "state": "offline"}, scenario.android_device("R5CT1234")])
    assert "(no serial number)" in Adb().run("devices", "-l").stdout
    assert [d.serial for d in AndroidDevices(Adb(), GateThresholds()).discover()] == ["R5CT1234"]


def test_android_discovery_of_no_devices_and_of_a_vanished_one(lab):
    devices = AndroidDevices(Adb(), GateThresholds())
    assert devices.discover() == []
    lab.set(android=[scenario.android_device("R5CT1234")])
    assert [d.serial for d in devices.discover()] == ["R5CT1234"]
    assert devices.presence("R5CT1234").state == "available"
    lab.set(android=[])
    assert devices.discover() == []
    assert devices.presence("R5CT1234") is None
    assert devices.status("R5CT1234") is None


def test_busy_device_is_listed_without_running_commands_on_it(lab):
    lab.set(android=[scenario.android_device("R5CT1234")])
    devices = AndroidDevices(Adb(), GateThresholds())
    devices.discover()
    before = len(lab.adb.requests)
    assert devices.discover(busy=frozenset({"R5CT1234"}))[0].battery == 87.0
    assert [r for r in lab.adb.requests[before:] if r.startswith("shell")] == []


def test_adb_errors_carry_the_clients_text(lab):
    lab.set(android=[{"serial": "R58M41ABCDE", "state": "unauthorized", "usb": "1-3"}])
    with pytest.raises(ToolError, match="device unauthorized"):
        Adb().shell("R58M41ABCDE", "getprop", "ro.product.model")
    with pytest.raises(ToolError, match="device 'NOPE' not found"):
        Adb().getprop("NOPE", "ro.product.model")
    with pytest.raises(ToolError, match="not installed"):
        Adb("adb-that-does-not-exist").devices()


def test_ios_discovery_through_the_libimobiledevice_fakes(lab):
    pending = scenario.ios_device("00008101-PENDING", lockdown_error={"code": -19,
                                                                      "text": "Pairing dialog response pending"})
    low = scenario.ios_device("00008101-LOWBATT", level=15, charging=True, temperature_centi_c=None)
    unmarked = scenario.ios_device("00008101-REAL")
    del unmarked["info"][scenario.STAND_IN_IOS_KEY]
    lab.set(ios=[scenario.ios_device("00008130-001A2C3E0E38001C"), pending, low, unmarked])
    found = {d.serial: d for d in IosDevices(IDeviceTools(), GateThresholds()).discover()}
    phone = found["00008130-001A2C3E0E38001C"]
    assert (phone.platform, phone.model, phone.os_version, phone.state) == ("ios", "iPhone 15 Pro", "17.5.1",
                                                                            "available")
    assert (phone.battery, phone.charging, phone.temperature) == (90.0, True, 29.11)
    assert phone.fingerprint["device_name"] == "Lab iPhone 15 Pro"
    assert phone.fingerprint["build"] == "21F90"
    assert STAND_IN_IOS_KEY == scenario.STAND_IN_IOS_KEY
    assert phone.fingerprint["stand_in"] == "jvm"
    assert "stand_in" not in found["00008101-REAL"].fingerprint
    # URLSession cannot force HTTP/1.1: an iPhone does not offer h1 (nor cleartext h1c).
    assert phone.capabilities == {"protocols": ["h2", "h3", "grpc"]}
    assert found["00008101-PENDING"].state == "unauthorized"
    assert "-19" in found["00008101-PENDING"].reason
    assert found["00008101-LOWBATT"].state == "not_ready"
    assert found["00008101-LOWBATT"].reason == "battery 15 % < 20 % while charging"
    assert found["00008101-LOWBATT"].temperature is None


def test_ios_without_usbmuxd_is_a_tool_error(lab):
    lab.set(usbmuxd=False)
    with pytest.raises(ToolError, match="Unable to retrieve device list"):
        IosDevices(IDeviceTools(), GateThresholds()).discover()
    lab.set(usbmuxd=True, ios=[])
    assert IosDevices(IDeviceTools(), GateThresholds()).discover() == []


def test_the_libimobiledevice_fakes_print_the_real_formats(lab):
    hive = scenario.ios_device("12345678", level=70, charging=True)
    hive["battery"] = {"BatteryCurrentCapacity": 70, "BatteryIsCharging": True, "ExternalChargeCapable": True,
                       "ExternalConnected": True, "FullyCharged": False, "GasGaugeCapability": True,
                       "HasBattery": True}
    lab.set(ios=[hive, scenario.ios_device("23451234")])
    assert run_tool(["idevice_id", "-l"], timeout_s=30).stdout == "12345678\n23451234\n"
    battery = run_tool(["ideviceinfo", "-u", "12345678", "-q", "com.apple.mobile.battery"], timeout_s=30)
    assert battery.stdout == HIVE_BATTERY  # the third-party fixture, byte for byte
    assert run_tool(["ideviceinfo", "-u", "12345678", "-k", "ProductVersion"], timeout_s=30).stdout == "17.5.1\n"
    missing = run_tool(["ideviceinfo", "-u", "NOPE"], timeout_s=30)
    assert missing.returncode == 255
    assert missing.stderr == "ERROR: Device NOPE not found!\n"
    xml = run_tool(["idevicediagnostics", "-u", "12345678", "ioregentry", "AppleSmartBattery"], timeout_s=30).stdout
    assert xml.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist')
    assert xml.endswith("</plist>\n\n")
    assert "\n\t<key>IORegistry</key>\n\t<dict>\n\t\t<key>" in xml
