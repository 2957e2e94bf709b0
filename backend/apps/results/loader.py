"""Reads a comparison's samples out of PostgreSQL into columnar numpy arrays, the input
of the pure analysis engine. One query, no ORM objects: a comparison may hold millions."""

from dataclasses import dataclass

import numpy as np
from django.db import connection

from apps.comparisons.models import Comparison


@dataclass(frozen=True)
class ComparisonSamples:
    arm_labels: list[str]
    group_labels: list[tuple[str, str]]  # (device serial, network profile) per group code
    arm: np.ndarray
    group: np.ndarray
    run: np.ndarray
    block: np.ndarray
    period: np.ndarray  # -1 where none
    repetition: np.ndarray  # -1 where none
    step: np.ndarray  # -1 where none
    measure: np.ndarray  # bool: phase == measure
    ok: np.ndarray  # bool: no error
    total_us: np.ndarray  # -1 where none
    ttfb_us: np.ndarray
    resp_bytes: np.ndarray
    server_delay_us: np.ndarray
    first_on_connection: np.ndarray  # bool
    run_labels: list[str]

    def __len__(self) -> int:
        return int(self.arm.shape[0])


def load_comparison_samples(comparison: Comparison) -> ComparisonSamples:
    arms = list(comparison.arms.order_by("position").values_list("id", "label"))
    arm_code = {arm_id: i for i, (arm_id, _) in enumerate(arms)}
    runs = list(comparison.runs.select_related("device").order_by("slot", "network_profile"))
    group_labels: list[tuple[str, str]] = []
    run_group: dict[str, int] = {}
    run_code: dict[str, int] = {}
    for run in runs:
        label = (run.device.serial if run.device else f"slot-{run.slot}", run.network_profile)
        if label not in group_labels:
            group_labels.append(label)
        run_group[str(run.id)] = group_labels.index(label)
        run_code[str(run.id)] = len(run_code)
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT run_id::text, arm_id, block, COALESCE(period, -1), COALESCE(repetition, -1), COALESCE(step, -1),
                   phase = 'measure', error_class IS NULL, COALESCE(total_us, -1), COALESCE(ttfb_us, -1),
                   COALESCE(resp_bytes, 0), COALESCE((server_delay_ms * 1000)::bigint, -1),
                   NOT COALESCE(conn_reused, FALSE)
            FROM results_sample WHERE comparison_id = %s ORDER BY run_id, block, seq
            """,
            [comparison.id],
        )
        rows = cursor.fetchall()
    columns = list(zip(*rows)) if rows else [()] * 13

    def ints(values: tuple, dtype: type = np.int64) -> np.ndarray:
        return np.asarray(values, dtype=dtype)

    return ComparisonSamples(
        arm_labels=[label for _, label in arms],
        group_labels=group_labels,
        run_labels=list(run_code),
        arm=np.asarray([arm_code[a] for a in columns[1]], dtype=np.int16),
        group=np.asarray([run_group[r] for r in columns[0]], dtype=np.int16),
        run=np.asarray([run_code[r] for r in columns[0]], dtype=np.int32),
        block=ints(columns[2], np.int32),
        period=ints(columns[3], np.int32),
        repetition=ints(columns[4], np.int32),
        step=ints(columns[5], np.int32),
        measure=ints(columns[6], bool),
        ok=ints(columns[7], bool),
        total_us=ints(columns[8]),
        ttfb_us=ints(columns[9]),
        resp_bytes=ints(columns[10]),
        server_delay_us=ints(columns[11]),
        first_on_connection=ints(columns[12], bool),
    )
