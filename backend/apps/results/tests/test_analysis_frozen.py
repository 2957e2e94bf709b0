"""The engine gives today what it gave before it was reworked for speed: every workload kind's
analysis, the calibration design's verdicts and the seeds/003 tables, equal to the frozen
document (frozen_analyses.py) to the last digit of every number."""

import pytest

from .frozen_analyses import CASES, as_frozen, frozen

FROZEN = frozen()


def differences(expected: object, actual: object, path: str = "") -> list[str]:
    """Where two JSON documents differ (the first few), to say more than `!=`."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = [f"{path}.{k}: missing" for k in expected.keys() - actual.keys()]
        out += [f"{path}.{k}: unexpected" for k in actual.keys() - expected.keys()]
        for k in expected.keys() & actual.keys():
            out += differences(expected[k], actual[k], f"{path}.{k}")
        return out
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [d for i, (e, a) in enumerate(zip(expected, actual, strict=True))
                for d in differences(e, a, f"{path}[{i}]")]
    if type(expected) is not type(actual) or expected != actual:
        return [f"{path}: {expected!r} → {actual!r}"]
    return []


def test_every_case_is_frozen():
    assert sorted(FROZEN) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_engine_gives_the_frozen_outputs(name):
    found = differences(FROZEN[name], as_frozen(CASES[name]()))
    assert not found, f"{len(found)} differences, e.g.\n" + "\n".join(sorted(found)[:20])
