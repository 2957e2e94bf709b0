"""The CLI's progress line: blocks, the run-until-decided range, and the device time left."""

from latencylab_runner.cli.progress import describe


def detail(**progress):
    base = {"percent": 25.0, "blocks_done": 3, "blocks_total": 12, "blocks_min": 12, "blocks_max": 12}
    return {"status": "running", "progress": {**base, **progress}}


def test_fixed_blocks_with_the_time_left_at_the_measured_pace():
    line = describe(detail(device_seconds_left_min=180, device_seconds_left_max=180))
    assert line == "running 25% (3/12 blocks), about 3 min of device time left"


def test_run_until_decided_gives_a_range():
    line = describe(detail(blocks_min=6, blocks_max=24, blocks_total=6, device_seconds_left_min=45,
                           device_seconds_left_max=4830))
    assert line == "running 25% (3/6 blocks; run until decided: 6–24), about 45 s–1 h 21 min of device time left"


def test_nothing_is_said_of_time_before_a_pace_exists_or_after_the_end():
    assert describe(detail(device_seconds_left_min=None, device_seconds_left_max=None)) == "running 25% (3/12 blocks)"
    assert describe(detail()) == "running 25% (3/12 blocks)"
    assert describe(detail(device_seconds_left_min=0, device_seconds_left_max=0)) == "running 25% (3/12 blocks)"


def test_a_look_that_can_stop_the_runs_makes_it_up_to():
    line = describe(detail(blocks_min=6, blocks_max=24, blocks_total=6, device_seconds_left_min=0,
                           device_seconds_left_max=720))
    assert line.endswith("), up to about 12 min of device time left")
