"""A simulator of phones for a device lab without hardware: `make up`'s demo lab
(`infra/bin/stack.py up --demo-lab`) and the runner's and backend's device-farm tests.

Stand-ins for what a lab host has and a CI machine cannot — phones, adb's server side,
usbmuxd, fastlane's Ruby gem — each obeying the real tool's output format (the exact formats
are cited in the modules): bin/ holds the simulated idevice_id, ideviceinfo,
idevicediagnostics and fastlane, put first on PATH; a scenario file (scenario.py) describes
the phones; lab.py is the `latencylab-phone-simulator` command. The simulated phones measure
with the real Kotlin harness core (harness_core.py) or not at all: nothing here makes up a
number. Only the standard library, so bin/'s programs run with any python3.
"""
