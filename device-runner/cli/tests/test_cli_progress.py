"""The CLI's progress line: blocks, the run-until-decided range, and the device time left."""

from latencylab_cli.progress import describe


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


# --- the bar on a terminal and the plain lines in a log ----------------------------------

import io  # noqa: E402

from latencylab_cli.progress import EtaEstimator, Progress, is_interactive  # noqa: E402


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def state(done: int, total: int = 10, status: str = "running", **extra):
    progress = {"percent": round(100 * done / total, 1), "blocks_done": done, "blocks_total": total,
                "blocks_min": total, "blocks_max": total, **extra}
    return {"status": status, "progress": progress}


def test_terminal_redraws_one_line_with_bar_percentage_and_eta_from_the_observed_rate():
    clock, out = Clock(), Tty()
    progress = Progress(out, clock=clock, environ={"TERM": "xterm"})
    assert progress.tty
    progress.update(state(0, status="queued"))
    clock.now += 30  # queued: not counted in the rate
    progress.update(state(2))
    clock.now += 20
    progress.update(state(4))  # 2 blocks in 20 s: 6 blocks left → 60 s
    clock.now += 10
    progress.update(state(4))  # 10 s since the last block: 50 s left
    progress.update(state(10, status="finished"))
    progress.finish_line()
    frames = out.getvalue().split("\r\x1b[K")[1:]
    assert frames[0].startswith("[........................] queued 0% (0/10 blocks)  ETA --")
    assert frames[1].startswith("[#####...................] running 20% (2/10 blocks)  ETA --  elapsed 30s")
    assert frames[2] == "[##########..............] running 40% (4/10 blocks)  ETA 1m00s  elapsed 50s"
    assert frames[3] == "[##########..............] running 40% (4/10 blocks)  ETA 50s  elapsed 1m00s"
    assert frames[4] == "[########################] finished 100% (10/10 blocks)  elapsed 1m00s\n"
    assert "\n" not in "".join(frames[:4])  # redrawn in place, never scrolled


def test_before_a_rate_the_terminal_shows_the_device_time_left_as_an_upper_bound():
    clock, out = Clock(), Tty()
    progress = Progress(out, clock=clock, tty=True)
    progress.update(state(3, device_seconds_left_min=420, device_seconds_left_max=420))
    assert "ETA ≤ 7m00s" in out.getvalue()


def test_a_log_gets_plain_lines_once_per_change_without_carriage_returns():
    clock, out = Clock(), io.StringIO()
    progress = Progress(out, clock=clock, environ={})
    assert not progress.tty
    progress.update(state(0, status="queued"))
    for done in (2, 2, 2, 4, 6):
        clock.now += 10
        progress.update(state(done))
    clock.now += 10
    progress.update(state(10, status="finished"))
    progress.finish_line()
    assert out.getvalue().splitlines() == [
        "queued 0% (0/10 blocks)",
        "running 20% (2/10 blocks)",
        "running 40% (4/10 blocks), ETA 1m30s",  # 2 blocks in 30 s since the first change, 6 left
        "running 60% (6/10 blocks), ETA 40s",  # 4 blocks in 40 s, 4 left
        "finished 100% (10/10 blocks)",
    ]
    assert "\r" not in out.getvalue()
    assert "\x1b" not in out.getvalue()


def test_an_unchanged_state_is_repeated_in_a_log_only_as_a_heartbeat():
    clock, out = Clock(), io.StringIO()
    progress = Progress(out, clock=clock, tty=False)
    for _ in range(5):
        progress.update(state(3))
        clock.now += 20
    assert out.getvalue().count("running 30%") == 2  # at 0 s and again at 60 s


def test_ci_true_or_a_dumb_terminal_means_a_log_even_on_a_tty():
    assert is_interactive(Tty(), {"TERM": "xterm"})
    assert not is_interactive(Tty(), {"CI": "true"})
    assert not is_interactive(Tty(), {"CI": "1", "TERM": "xterm"})
    assert not is_interactive(Tty(), {"TERM": "dumb"})
    assert is_interactive(Tty(), {"CI": "false"})
    assert not is_interactive(io.StringIO(), {})


def test_no_eta_once_every_block_is_stored():
    clock, out = Clock(), io.StringIO()
    progress = Progress(out, clock=clock, tty=False)
    for done in (2, 4, 6):
        progress.update(state(done))
        clock.now += 10
    progress.update(state(10, status="analysing"))
    assert out.getvalue().splitlines()[-1] == "analysing 100% (10/10 blocks)"


def test_eta_counts_a_stall_against_the_estimate_and_never_goes_negative():
    eta = EtaEstimator()
    eta.observe(0.0, 1)
    assert eta.seconds_left(0.0, 1, 5) is None
    eta.observe(10.0, 2)
    assert eta.seconds_left(10.0, 2, 5) is None  # one change: no rate yet
    eta.observe(20.0, 3)  # 1 block per 10 s
    assert eta.seconds_left(20.0, 3, 5) == 20.0
    assert eta.seconds_left(35.0, 3, 5) == 5.0
    assert eta.seconds_left(90.0, 3, 5) == 0.0


def test_a_queued_comparison_says_what_it_waits_for():
    waiting = ("waiting for a free host device in pool 'local': 1 comparison ahead (1 run, 4 blocks left) "
               "on 1 ready device, about 2 min at the pool's recent pace")
    queued = {"status": "queued", "progress": {"percent": 0, "blocks_done": 0, "blocks_total": 4},
              "runs": [{"status": "leased", "waiting_for": None}, {"status": "queued", "waiting_for": waiting}]}
    assert describe(queued) == f"queued 0% (0/4 blocks); {waiting}"
    # Once it runs, the line is about its own progress.
    assert "waiting" not in describe({**queued, "status": "running"})
