"""Stand-ins for what cannot exist on a CI machine — phones, adb's server side, usbmuxd,
fastlane's Ruby gem — each obeying the real tool's output format (the exact formats are
cited in the modules). Tests put `bin/` on PATH and describe the phones in a scenario
file (scenario.py)."""
