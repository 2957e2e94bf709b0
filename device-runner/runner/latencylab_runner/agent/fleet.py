"""Every device the runner's drivers see, refreshed at each heartbeat: which driver owns
it, its state and health, which ones are busy with a run, and the ones that vanished
(reported `offline` with reason `disconnected` until they come back).

A device a run has just freed is offered for work again only once discovery has looked
at it: a busy device is listed but never queried, so what is known of it dates from
before its run — and the run may have ended because the phone was unplugged."""

from __future__ import annotations

import logging
import threading
from typing import Any, Protocol

from ..devices.model import DeviceStatus

log = logging.getLogger(__name__)


class Driver(Protocol):
    name: str

    def discover(self, busy: frozenset[str] = frozenset()) -> list[DeviceStatus]: ...

    def execute(self, lease: dict[str, Any], client: Any, cancelled: threading.Event) -> None: ...


class Fleet:
    def __init__(self, drivers: list[Driver], lab_capabilities: dict[str, dict[str, Any]] | None = None):
        self.drivers = drivers
        # What the lab can do for each driver's devices (shaping, the reference target's
        # certificate: agent/lab_capabilities.py), added to each device's own capabilities.
        self.lab_capabilities = lab_capabilities or {}
        self._owner: dict[str, Driver] = {}
        self._status: dict[str, DeviceStatus] = {}
        self._busy: set[str] = set()
        self._quarantined: set[str] = set()
        self._unchecked: set[str] = set()  # freed by a run, not discovered since
        self._refreshing: threading.Thread | None = None
        self._lock = threading.Lock()

    def refresh(self) -> None:
        busy = self.busy()
        for driver in self.drivers:
            try:
                found = driver.discover(busy=busy)
            except Exception as exc:  # adb missing, usbmuxd down: its phones are unreachable, not unknown
                log.warning("%s discovery failed: %s", driver.name, exc)
                with self._lock:
                    for serial, owner in self._owner.items():
                        if owner is driver and self._status[serial].state != "offline":
                            self._status[serial] = _offline(self._status[serial], f"{driver.name} discovery: {exc}")
                continue
            with self._lock:
                listed = {status.serial for status in found}
                for status in found:
                    self._owner[status.serial] = driver
                    self._status[status.serial] = status
                    if status.serial not in busy:  # queried, not just listed
                        self._unchecked.discard(status.serial)
                # One that vanished is checked too: it is offline now.
                self._unchecked -= {s for s, owner in self._owner.items() if owner is driver and s not in listed}
                for serial, owner in self._owner.items():
                    if owner is driver and serial not in listed and self._status[serial].reason != "disconnected":
                        self._status[serial] = _offline(self._status[serial], "disconnected")

    def refresh_within(self, timeout_s: float) -> bool:
        """Refresh, but wait at most `timeout_s`: a wedged adb (each call may take its full
        time limit) must not delay the heartbeat that keeps the runs' leases alive. The
        refresh finishes in the background; one at a time. True when it finished."""
        with self._lock:
            if self._refreshing is None or not self._refreshing.is_alive():
                self._refreshing = threading.Thread(target=self.refresh, name="discovery", daemon=True)
                self._refreshing.start()
            thread = self._refreshing
        thread.join(timeout_s)
        return not thread.is_alive()

    def descriptors(self) -> list[dict[str, Any]]:
        with self._lock:
            out = []
            for serial, status in self._status.items():
                descriptor = status.descriptor()
                lab = self.lab_capabilities.get(self._owner[serial].name)
                if lab:
                    descriptor["capabilities"] = {**(descriptor.get("capabilities") or {}), **lab}
                if serial in self._busy:
                    descriptor["state"], descriptor["reason"] = "busy", None
                out.append(descriptor)
            return out

    def free(self) -> list[str]:
        with self._lock:
            return [s for s, status in self._status.items()
                    if status.state == "available" and s not in self._busy and s not in self._quarantined
                    and s not in self._unchecked]

    def effective_states(self, devices: list[dict[str, Any]]) -> None:
        """The backend's answer to hello/heartbeat: a device it quarantined (repeated
        infrastructure failures; an admin releases it) is not offered for work."""
        with self._lock:
            for device in devices:
                serial = str(device.get("serial"))
                if device.get("state") == "quarantined":
                    self._quarantined.add(serial)
                else:
                    self._quarantined.discard(serial)

    def busy(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._busy)

    def claim(self, serial: str) -> Driver | None:
        with self._lock:
            if serial in self._busy or serial not in self._owner:
                return None
            self._busy.add(serial)
            return self._owner[serial]

    def release(self, serial: str) -> None:
        """The run on `serial` ended: it is offered again after the next discovery."""
        with self._lock:
            self._busy.discard(serial)
            self._unchecked.add(serial)

    def driver_names(self) -> list[str]:
        return [driver.name for driver in self.drivers]


def _offline(status: DeviceStatus, reason: str) -> DeviceStatus:
    return DeviceStatus(serial=status.serial, platform=status.platform, model=status.model,
                        os_version=status.os_version, capabilities=status.capabilities, state="offline",
                        reason=reason, fingerprint=status.fingerprint)
