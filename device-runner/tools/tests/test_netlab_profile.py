"""LinkProfile validation and the preset table of docs/network-conditions.md."""
import pytest
from latencylab_tools.netlab import PRESETS, Blackout, DirectionProfile, LinkProfile, ProfileError

# docs/network-conditions.md, "Presets": preset -> (down kbit/s, up kbit/s, RTT ms, loss %)
DOCUMENTED_TABLE = {
    "none": (None, None, 0, 0),
    "cable": (5000, 1000, 28, 0),
    "dsl": (1500, 384, 50, 0),
    "3g": (1600, 768, 300, 0),
    "3g-fast": (1600, 768, 150, 0),
    "4g": (9000, 9000, 170, 0),
    "lte": (12000, 12000, 70, 0),
    "edge-lossy": (240, 200, 840, 1),
    "2g-rural": (20, 18, 1300, 2),
    "qir-default": (10000, 10000, 30, 0),
    "transatlantic": (None, None, 95, 0.1),
    "lossy-wifi": (20000, 10000, 20, 2),
    "train": (3000, 1000, 120, 1.5),
}


def test_presets_match_the_documented_table():
    assert list(PRESETS) == list(DOCUMENTED_TABLE)
    for name, (down, up, rtt, loss) in DOCUMENTED_TABLE.items():
        p = PRESETS[name]
        assert (p.down.rate_kbit, p.up.rate_kbit) == (down, up), name
        assert p.down.delay_ms == p.up.delay_ms == rtt / 2, name
        assert p.rtt_ms == rtt, name
        for d in (p.down, p.up):
            assert d.effective_loss_pct() == pytest.approx(loss, abs=1e-9), name


def test_special_presets():
    assert PRESETS["qir-default"].down.queue_packets == 25
    train = PRESETS["train"]
    assert train.down.loss_model == "gilbert_elliott"
    assert train.down.jitter_ms == 20
    assert train.down.jitter_correlation_pct > 0
    assert train.blackouts == (Blackout(every_s=30, duration_s=2),)
    assert PRESETS["none"].is_identity()


@pytest.mark.parametrize("patch, message", [
    ({"down": {"delay_ms": -1}}, "down.delay_ms: must be in [0, 60000]"),
    ({"up": {"loss_pct": 150}}, "up.loss_pct: must be in [0, 100]"),
    ({"up": {"jitter_correlation_pct": 101}}, "up.jitter_correlation_pct"),
    ({"down": {"rate_kbit": 1}}, "down.rate_kbit: must be in [8, 1e+08]"),
    ({"down": {"queue_packets": 0}}, "down.queue_packets: must be in [1, 1e+06]"),
    ({"down": {"queue_packets": 2.5}}, "down.queue_packets: must be an integer"),
    ({"down": {"loss_model": "bursty"}}, "down.loss_model: must be one of random, gilbert_elliott"),
    ({"down": {"loss_model": "gilbert_elliott"}}, "down.gilbert: required"),
    ({"down": {"gilbert": {"p": 120}}}, "down.gilbert.p: must be in [0, 100]"),
    ({"down": {"delay": 5}}, "down: unknown field(s) delay"),
    ({"down": {"delay_ms": "5"}}, "down.delay_ms: must be a number"),
    ({"blackouts": [{"every_s": 2, "duration_s": 3}]}, "blackouts[0].duration_s: must be < every_s"),
    ({"blackouts": [{"every_s": 0, "duration_s": 0.1}]}, "blackouts[0].every_s: must be in (0, 86400]"),
    ({"rtt": 3}, "profile: unknown field(s) rtt"),
])
def test_validation_names_field_and_range(patch, message):
    with pytest.raises(ProfileError) as e:
        LinkProfile.from_dict({"name": "x", **patch})
    assert message in str(e.value)


def test_from_dict_round_trip_and_burst():
    d = {"name": "bursty", "seed": 7,
         "down": {"delay_ms": 40, "jitter_ms": 5, "jitter_correlation_pct": 50, "loss_pct": 2, "burst": 4,
                  "rate_kbit": 5000, "queue_packets": 30},
         "up": {"delay_ms": 40, "gilbert": {"p": 1, "r": 25, "h": 10, "k": 99}},
         "blackouts": [{"every_s": 30, "duration_s": 2}]}
    p = LinkProfile.from_dict(d)
    assert p.down.loss_model == "gilbert_elliott"
    assert p.down.gilbert.r == pytest.approx(25.0)          # mean burst 4 packets
    assert p.down.effective_loss_pct() == pytest.approx(2.0)
    assert p.up.gilbert.mean_loss_pct() == pytest.approx(p.up.loss_pct)
    assert LinkProfile.from_dict(p.to_dict()) == p


def test_symmetric_splits_rtt():
    p = LinkProfile.symmetric("s", rtt_ms=100, rate_down_kbit=1000, loss_pct=1)
    assert p.down == DirectionProfile(delay_ms=50, rate_kbit=1000, loss_pct=1)
    assert p.up.rate_kbit is None
    assert p.rtt_ms == 100
