"""The names the readiness fields allow (result.schema.json: `readiness.interface`, each
platform's `fingerprint.thermal_status`) are the ones the harness cores write: the Kotlin
core's `LinkDescription.KINDS` and `DeviceInfo.THERMAL_STATUS`, the Swift core's
`ReadinessReport.kinds` and `DeviceInfo.iosThermalStates`, read from their sources (the
Swift core is not compiled where this repository is tested, so its lists are checked here;
the runner's gate reads the schema itself: runner/tests/test_device_gate.py)."""

import re
from pathlib import Path

from latencylab_contract import contract_dir, load_schema

HARNESS = contract_dir().parents[1] / "harness"
KOTLIN = HARNESS / "android/core/src/main/kotlin/dev/latencylab/harness"
SWIFT = HARNESS / "ios/Sources/HarnessCore"


def _strings(text: str) -> list[str]:
    return re.findall(r'"([a-z_]+)"', text)


def _schema_interfaces() -> list[str]:
    return [n for n in load_schema("result")["$defs"]["readiness"]["properties"]["interface"]["enum"] if n]


def _schema_thermal(platform: str) -> list[str]:
    for rule in load_schema("result")["$defs"]["fingerprint"]["allOf"]:
        if rule["if"]["properties"]["platform"]["const"] == platform:
            return [n for n in rule["then"]["properties"]["thermal_status"].get("enum", []) if n]
    raise AssertionError(f"no thermal_status rule for {platform}")


def _between(path: Path, start: str, end: str) -> str:
    text = path.read_text(encoding="utf-8")
    begin = text.index(start)
    return text[begin:text.index(end, begin + len(start))]


def test_the_kotlin_core_writes_the_schemas_interface_kinds_and_thermal_names():
    kinds = _between(KOTLIN / "readiness/Readiness.kt", "val KINDS = listOf(", ")")
    assert _strings(kinds) == _schema_interfaces()
    thermal = _between(KOTLIN / "result/Fingerprint.kt", "val THERMAL_STATUS = mapOf(", "\n        )")
    android = _between(KOTLIN / "result/Fingerprint.kt", '"android" to listOf(', ")")
    ios = _between(KOTLIN / "result/Fingerprint.kt", '"ios" to listOf(', ")")
    assert '"host"' not in thermal  # the host has no thermal status
    assert _strings(android)[1:] == _schema_thermal("android")
    assert _strings(ios)[1:] == _schema_thermal("ios")


def test_the_swift_core_writes_the_schemas_interface_kinds_and_thermal_names():
    kinds = _between(SWIFT / "Readiness/ReadinessCheck.swift", "static let kinds = [", "]")
    assert _strings(kinds) == _schema_interfaces()
    ios = _between(SWIFT / "Result/Fingerprint.swift", "static let iosThermalStates = [", "]")
    assert _strings(ios) == _schema_thermal("ios")
    assert _schema_thermal("host") == []
