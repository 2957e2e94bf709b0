"""What only the tests need: a recording runner-protocol backend (backend.py). The phones,
adb's server side and the lab's tools are the runner's phone simulator
(latencylab_runner.phone_simulator), which `make up`'s demo lab runs too."""
