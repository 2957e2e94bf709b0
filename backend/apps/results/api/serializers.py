"""Output shapes of the results endpoints: the charts' aggregates, the statistics engine's
analysis (apps.results.analysis, plus `requests` and `phases` from services.py) and the
CI verdict (verdicts/ci_verdict.py). Documentation only: the views send what the engine and
verdicts/ build, unchanged (tests/test_response_schemas.py validates real responses
against these components, so neither can drift)."""

from collections.abc import Sequence
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.comparisons.models import Comparison

from ..analysis.effects import CLIFF_THRESHOLDS, COHEN_THRESHOLDS
from ..analysis.metrics import METRICS
from ..analysis.stalls import ABOVE_EXPECTED, SLOWER_THAN_LARGER_SIZE, STALL_REASONS, StallRule
from ..analysis.verdict import EQUIVALENT, IMPROVEMENT, INCONCLUSIVE, REGRESSION
from ..storage.derive import PHASES
from ..verdicts.gate import NO_DATA, OUTCOMES_WORST_FIRST


class NamedChoiceField(serializers.ChoiceField):
    """A choice field whose choices come with its class (see _enum)."""

    choice_values: list[str] = []

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=self.choice_values, **kwargs)


def _enum(component: str, choices: Sequence[str], doc: str) -> type[NamedChoiceField]:
    """A choice field documented as the named enum component `component` (so clients get
    one type, and its values, per set of choices)."""

    @extend_schema_field({"type": "string", "enum": list(choices), "description": doc}, component_name=component)
    class Field(NamedChoiceField):
        choice_values = list(choices)

    Field.__name__ = f"{component}Field"
    return Field


MetricField = _enum("Metric", list(METRICS),
                    "per request: total_ms = app_done − t0, ttfb_ms = resp_first_byte − req_start; per group: "
                    "series_ms = a series' time (first request issued → last response completed when issued "
                    "concurrently, the sum of its requests' times otherwise), page_load_ms = a pass over a request "
                    "list's time, timed the same way")
VerdictOutcomeField = _enum("VerdictOutcome", [REGRESSION, IMPROVEMENT, EQUIVALENT, INCONCLUSIVE],
                            "one comparison's verdict (docs/methodology.md §8)")
OverallOutcomeField = _enum("OverallOutcome", [*OUTCOMES_WORST_FIRST, NO_DATA],
                            "the worst verdict decides: regression > inconclusive > improvement > equivalent; "
                            "no_data when nothing was compared")
CliffsLabelField = _enum("CliffsLabel", ["negligible", *(label for _, label in reversed(CLIFF_THRESHOLDS))],
                         "Cliff's δ in words (|δ| < 0.147 negligible, < 0.33 small, < 0.474 medium)")
CohensLabelField = _enum("CohensLabel", ["negligible", *(label for _, label in reversed(COHEN_THRESHOLDS))],
                         "Cohen's d on log latency in words")
ComparisonScopeField = _enum("ComparisonScope", ["pooled", "device", "period"],
                              "pooled: a device class's headline row; device: one device of the class beneath it; "
                              "period: series time of one period of the class beneath it (results only)")
GateStatisticField = _enum("GateStatistic", ["median"], "the statistic the gate compares")
_RULE = StallRule()
StallReasonField = _enum("StallReason", list(STALL_REASONS),
                         f"{ABOVE_EXPECTED}: the median exceeds expected_ms × {1 + _RULE.margin:g} "
                         f"+ {_RULE.floor_ms:g} ms; "
                         f"{SLOWER_THAN_LARGER_SIZE}: the band is slower than a larger size of the series by "
                         f"{_RULE.step_ms:g} ms (and {_RULE.margin:.0%}) or more "
                         "(the delayed-ACK signature: time that disappears at a larger size is no transfer time)")
RateSourceField = _enum("ExpectedRateSource", ["sweep", "link"],
                        "sweep: the throughput of the series' largest response; link: the run's measured link rate")
BaselineKindField = _enum("VerdictBaselineKind", ["arm", "comparison"],
                          "arm: the comparison's own baseline arm; comparison: same-named arms of another comparison")


def _ms(**kwargs: object) -> serializers.FloatField:
    """A duration in ms; null where the engine's value is not a finite number."""
    return serializers.FloatField(allow_null=True, **kwargs)  # type: ignore[arg-type]


def _interval(**kwargs: object) -> serializers.ListField:
    """[low, high]; a bound is null when it is not a finite number."""
    return serializers.ListField(child=serializers.FloatField(allow_null=True), min_length=2, max_length=2,
                                 **kwargs)  # type: ignore[arg-type]


# --- the charts' aggregates ------------------------------------------------------------------------


class RequestStatsSerializer(serializers.Serializer):
    n = serializers.IntegerField()
    # A declared field, which DRF's metaclass moves into _declared_fields (Serializer.errors is untouched at runtime);
    # the stubs see it as overriding the property.
    errors = serializers.IntegerField()  # type: ignore[assignment]
    median_ms = serializers.FloatField(allow_null=True)
    p90_ms = serializers.FloatField(allow_null=True)
    p95_ms = serializers.FloatField(allow_null=True)


class ArmSeriesSerializer(serializers.Serializer):
    avg_ms = serializers.ListField(child=serializers.FloatField(allow_null=True))
    median_ms = serializers.ListField(child=serializers.FloatField(allow_null=True))
    throughput_bps = serializers.ListField(child=serializers.FloatField(allow_null=True))
    gain_pct = serializers.ListField(child=serializers.FloatField(allow_null=True))
    n = serializers.ListField(child=serializers.IntegerField())
    series_ms = serializers.ListField(child=serializers.ListField(child=serializers.FloatField()))


class PerRequestArmSerializer(serializers.Serializer):
    """One value per listed request, in the order of PerRequestSerializer.names."""

    median_ms = serializers.ListField(child=serializers.FloatField(allow_null=True))
    p90_ms = serializers.ListField(child=serializers.FloatField(allow_null=True))
    n = serializers.ListField(child=serializers.IntegerField())
    errors = serializers.ListField(child=serializers.IntegerField())  # type: ignore[assignment]


class PerRequestSerializer(serializers.Serializer):
    names = serializers.ListField(child=serializers.CharField(), help_text="the listed requests, in list order")
    arms = serializers.DictField(child=PerRequestArmSerializer())


class ResultGroupSerializer(serializers.Serializer):
    device = serializers.CharField()
    network_profile = serializers.CharField()
    periods = serializers.ListField(child=serializers.IntegerField())
    arms = serializers.DictField(child=ArmSeriesSerializer())
    requests = serializers.DictField(child=RequestStatsSerializer())
    concurrency = serializers.CharField(
        required=False,
        help_text="how the workload issued each series' requests: sequential, parallel N (HTTP/1.1 connections "
                  "per host; HTTP/2, HTTP/3 and gRPC multiplex on one) or all. Sequential series are timed as the "
                  "sum of their requests' times, concurrent ones first request issued → last response "
                  "completed; absent from analyses stored before concurrency existed: sequential")
    per_request = PerRequestSerializer(required=False, help_text="a `requests` workload only: its requests in "
                                       "list order, per arm")


# --- the statistics engine's analysis ---------------------------------------------------------------


class VerdictConfigSerializer(serializers.Serializer):
    margin_pct = serializers.FloatField()
    margin_floor_ms = serializers.FloatField()
    alpha = serializers.FloatField()
    min_abs_cliffs_delta = serializers.FloatField()
    n_boot = serializers.IntegerField()
    seed = serializers.IntegerField()


class DescriptiveRowSerializer(serializers.Serializer):
    """descriptive.py `describe`: per arm × period × device × profile. A group where every
    request failed has only n = 0 and errors."""

    arm = serializers.CharField()
    period = serializers.IntegerField(allow_null=True, help_text="null: every period folded together")
    device = serializers.CharField()
    profile = serializers.CharField(help_text="the network profile")
    metric = MetricField()
    n = serializers.IntegerField()
    errors = serializers.IntegerField()  # type: ignore[assignment]  # as in RequestStatsSerializer
    mean_ms = _ms(required=False)
    median_ms = _ms(required=False)
    median_ci95_ms = _interval(required=False, help_text="95 % bootstrap CI of the median")
    p90_ms = _ms(required=False)
    p95_ms = _ms(required=False)
    p99_ms = _ms(required=False)
    stddev_ms = _ms(required=False, help_text="sample SD; null for one request")
    min_ms = _ms(required=False)
    max_ms = _ms(required=False)


class PerRequestRowSerializer(DescriptiveRowSerializer):
    """per_request.py `per_request`: a request list's requests each on its own, per arm × device ×
    profile."""

    period = None  # type: ignore[assignment]  # the request's index takes its place
    step = serializers.IntegerField(help_text="the request's index in the spec's list (the sample's step)")
    name = serializers.CharField(help_text="the request's name in the spec, else its index, method and path")


class SeriesRowSerializer(serializers.Serializer):
    """series.py `series_summary`: per profile × device × arm × period."""

    profile = serializers.CharField()
    device = serializers.CharField()
    arm = serializers.CharField()
    period = serializers.IntegerField()
    series = serializers.IntegerField(help_text="complete series")
    incomplete_series = serializers.IntegerField(help_text="series with a failed request, left out of the times")
    average_ms = _ms()
    median_ms = _ms()
    times_ms = serializers.ListField(child=serializers.FloatField(), help_text="every complete series' time, sorted")
    throughput_bytes_per_s = serializers.FloatField(allow_null=True)
    gain_pct = serializers.FloatField(allow_null=True, help_text="(baseline average / arm average − 1) × 100")
    median_gain_pct = serializers.FloatField(allow_null=True)
    speedup = serializers.FloatField(allow_null=True)


class ConnectionSideSerializer(serializers.Serializer):
    n = serializers.IntegerField()
    mean_ms = _ms()
    median_ms = _ms()
    bytes = serializers.IntegerField()
    throughput_bytes_per_s = serializers.FloatField(allow_null=True)


class FirstVsRestRowSerializer(serializers.Serializer):
    """connection.py `first_vs_rest`: the first request on a connection against the rest."""

    profile = serializers.CharField()
    device = serializers.CharField()
    arm = serializers.CharField()
    metric = MetricField()
    first = ConnectionSideSerializer(allow_null=True)
    rest = ConnectionSideSerializer(allow_null=True)
    first_minus_rest_mean_ms = _ms()
    first_minus_rest_median_ms = _ms()


class DelaySweepRowSerializer(serializers.Serializer):
    """sweeps.py `delay_sweep`: measured − known server delay per step."""

    profile = serializers.CharField()
    device = serializers.CharField()
    arm = serializers.CharField()
    known_delay_ms = serializers.FloatField()
    n = serializers.IntegerField()
    added_median_ms = _ms()
    added_mean_ms = _ms()
    added_p90_ms = _ms()
    measured_median_ms = _ms()


class PayloadSweepRowSerializer(serializers.Serializer):
    """sweeps.py `payload_sweep`: latency ÷ the block's baseline RTT per response size, and the
    stall detector's verdict on the size band (stalls.py)."""

    profile = serializers.CharField()
    device = serializers.CharField()
    arm = serializers.CharField()
    resp_bytes = serializers.IntegerField()
    n = serializers.IntegerField()
    median_ms = _ms()
    median_rtt_multiple = serializers.FloatField(allow_null=True)
    baseline_rtt_ms = _ms(help_text="null without a baseline RTT")
    slow = serializers.BooleanField(allow_null=True, help_text="the older rule, kept with its meaning: median above "
                                    "2 × RTT (every size on a fast path: no stall verdict, see `stall`); null without "
                                    "a baseline RTT")
    slower_than_next_size = serializers.BooleanField()
    # The stall detector (analysis/stalls.py); absent from analyses stored before it existed.
    stall = serializers.BooleanField(
        allow_null=True, required=False,
        help_text="slower than the network explains (see stall_reasons); null when not judged: no baseline RTT or "
        f"fewer than {_RULE.min_samples} requests")
    stall_reasons = serializers.ListField(child=StallReasonField(), required=False,
                                          help_text="which tests flagged the band; empty when not a stall")
    expected_ms = _ms(required=False, help_text="the median the network explains: RTT × (1 + 2 handshake round trips "
                      "on a fresh connection) + size ÷ rate + a round trip per slow-start window below the path's "
                      "bandwidth-delay product (fresh connection, or a window that restarts after idle); null when not "
                      "judged")
    excess_ms = _ms(required=False, help_text="median_ms − expected_ms")
    expected_rate_kbit = serializers.FloatField(allow_null=True, required=False,
                                                help_text="the rate expected_ms assumes, kbit/s")
    expected_rate_source = RateSourceField(allow_null=True, required=False)
    expected_slow_start = serializers.BooleanField(allow_null=True, required=False,
                                                   help_text="expected_ms includes slow-start round trips")


class PhaseRowSerializer(serializers.Serializer):
    """phases.py: per arm × device × profile over measured, successful requests, the median
    of each phase (null when no request had it) and how many of the n requests had it (a
    reused connection has no DNS, connect or TLS; QUIC reports its handshake as connect)."""

    arm = serializers.CharField()
    device = serializers.CharField()
    profile = serializers.CharField()
    n = serializers.IntegerField()
    dns_ms = _ms()
    dns_n = serializers.IntegerField()
    connect_ms = _ms()
    connect_n = serializers.IntegerField()
    tls_ms = _ms()
    tls_n = serializers.IntegerField()
    ttfb_ms = _ms()
    ttfb_n = serializers.IntegerField()
    download_ms = _ms()
    download_n = serializers.IntegerField()


# Checked at import: a phase added to PHASES without its serializer field would vanish from the API.
if [f"{name}_ms" for name in PHASES] != [f for f in PhaseRowSerializer().fields.keys() if f.endswith("_ms")]:
    raise RuntimeError("PhaseRowSerializer's *_ms fields no longer match results.phases.PHASES")


class BlocksByOutcomeSerializer(serializers.Serializer):
    regression = serializers.IntegerField(allow_null=True)
    improvement = serializers.IntegerField(allow_null=True)
    equivalent = serializers.IntegerField(allow_null=True)


class VerdictSerializer(serializers.Serializer):
    """verdict.py `Verdict`."""

    outcome = VerdictOutcomeField()
    margin = serializers.FloatField(help_text="effective relative margin on the ratio (0.05 = 5 %; the 2 ms floor "
                                    "can widen it)")
    alpha = serializers.FloatField()
    reason = serializers.CharField()
    blocks_needed_per_device = serializers.IntegerField(allow_null=True)
    additional_blocks_per_device = serializers.IntegerField(allow_null=True)
    blocks_by_outcome = BlocksByOutcomeSerializer(
        allow_null=True, required=False,
        help_text="inconclusive only: per outcome, the total blocks per device at which it would be reached if the "
        "per-block effects kept their observed mean and spread (null: not at that mean); absent from analyses "
        "stored before it existed")


class ArmComparisonSerializer(serializers.Serializer):
    """compare.py `ArmComparison`: one arm against the baseline arm on one metric, device
    class and profile."""

    arm = serializers.CharField()
    baseline_arm = serializers.CharField()
    metric = MetricField()
    device_class = serializers.CharField(help_text="devices pooled by class (e.g. a phone model); by default "
                                         "each device is its own class")
    profile = serializers.CharField()
    devices = serializers.IntegerField()
    blocks = serializers.IntegerField(help_text="paired blocks over all devices")
    blocks_per_device = serializers.FloatField()
    n_candidate = serializers.IntegerField()
    n_baseline = serializers.IntegerField()
    median_candidate_ms = _ms()
    median_baseline_ms = _ms()
    ratio = serializers.FloatField(allow_null=True, help_text="exp(mean per-block effect): for a multiplicative "
                                  "change, median candidate / median baseline; < 1 is faster")
    ratio_ci95 = _interval()
    ratio_ci90 = _interval()
    change_pct = serializers.FloatField(allow_null=True)
    change_ci95_pct = _interval()
    gain_pct = serializers.FloatField(allow_null=True)
    speedup = serializers.FloatField(allow_null=True)
    p_blocks = serializers.FloatField(allow_null=True, help_text="t-test on the per-block effects (log-ratios of "
                                     "10 %-trimmed geometric means)")
    p_blocks_holm = serializers.FloatField(allow_null=True, help_text="Holm-adjusted over the arm's device "
                                           "classes × profiles on this metric")
    p_requests_mann_whitney = serializers.FloatField(allow_null=True)
    cliffs_delta = serializers.FloatField(allow_null=True)
    cliffs_label = CliffsLabelField()
    cohens_d_log = serializers.FloatField(allow_null=True)
    cohens_label = CohensLabelField()
    verdict = VerdictSerializer()
    summary = serializers.CharField()
    scope = ComparisonScopeField(required=False, help_text="pooled: the device class's headline (absent from "
                                 "analyses stored before pooling: pooled); device: one device of the class beneath it")
    device = serializers.CharField(allow_null=True, required=False, help_text="the device of a `device` row")
    devices_disagree = serializers.BooleanField(required=False, help_text="pooled row: one device regresses and "
                                                "another improves (the row is then inconclusive)")
    period = serializers.IntegerField(allow_null=True, required=False, help_text="the period of a `period` row; "
                                      "absent from analyses before version 2")
    periods_disagree = serializers.BooleanField(
        required=False, help_text="pooled series-time row: one period regresses and another improves (flagged; "
        "the pooled verdict stands); absent from analyses before version 2")


class AnalysisSerializer(serializers.Serializer):
    """report.py `analyze_comparison`, plus `requests` and `phases` (services.py). A
    section is empty when the workload has no such data."""

    version = serializers.IntegerField(help_text="the engine's format: 2 adds the group metrics (series_ms, "
                                       "page_load_ms) with per-period rows and `group_times`; a version 1 analysis "
                                       "compared per-request metrics only")
    baseline_arm = serializers.CharField()
    config = VerdictConfigSerializer()
    samples = serializers.IntegerField()
    concurrency = serializers.CharField(required=False, help_text="the workload's concurrency (see the groups'); "
                                        "absent from analyses stored before concurrency existed: sequential")
    descriptive = DescriptiveRowSerializer(many=True)
    series = SeriesRowSerializer(many=True)
    first_vs_rest = FirstVsRestRowSerializer(many=True)
    delay_sweep = DelaySweepRowSerializer(many=True)
    payload_sweep = PayloadSweepRowSerializer(many=True)
    comparisons = ArmComparisonSerializer(many=True)
    group_times = DescriptiveRowSerializer(
        many=True, required=False, help_text="per arm × device × profile, a group metric's statistics (series_ms, "
        "page_load_ms) over every period; `errors` counts the groups with a failed request; absent from analyses "
        "before version 2")
    requests = DescriptiveRowSerializer(many=True, help_text="per arm × device × profile over every period")
    phases = PhaseRowSerializer(many=True, required=False,
                                help_text="absent from analyses stored before the phase breakdown existed")
    per_request = PerRequestRowSerializer(many=True, required=False,
                                          help_text="a `requests` workload only: each listed request on its own")


# --- which client and server each arm measured (stacks.py) -------------------------------------------

ServerTargetField = _enum("ServerTarget", ["reference", "customer"],
                          "reference: the runner's own reference target server (the arm has no endpoint); "
                          "customer: the arm's own endpoint")


class ClientStackSerializer(serializers.Serializer):
    platform = serializers.CharField(help_text="host, android or ios (as the run's fingerprint says)")
    device = serializers.CharField(help_text="the device's model (a phone's \"Pixel 8\"), else its name")
    stack = serializers.CharField(help_text="the client implementation and version the harness reported for the "
                                  "arm's protocol, e.g. \"okhttp 5.1.0\", \"latencylab-probe 0.1.0 (aioquic 1.2.0)\"")
    runs = serializers.IntegerField(help_text="runs that reported this client")


class ServerStackSerializer(serializers.Serializer):
    target = ServerTargetField()
    software = serializers.CharField(allow_null=True, help_text="the reference target's implementation serving the "
                                     "arm's protocol, as the runner knows it; null for a customer's server and for "
                                     "runs from runners that did not report it")
    server_headers = serializers.ListField(
        child=serializers.CharField(), allow_null=True,
        help_text="the distinct Server response header values read (at most 3 per run); [] when the responses "
        "carried none; null when the harness could not read them on the arm's protocol or did not report them "
        "(older runners, the phone harnesses today)")
    runs = serializers.IntegerField(help_text="runs that reported this server")


class ArmStacksSerializer(serializers.Serializer):
    arm = serializers.CharField()
    protocol = serializers.CharField()
    clients = ClientStackSerializer(many=True, help_text="one per distinct platform × device × client stack")
    servers = ServerStackSerializer(many=True, help_text="one per distinct server the runs reported; empty until a "
                                    "run finishes")


class SamplesRemovalSerializer(serializers.Serializer):
    retention_days = serializers.IntegerField(help_text="the sample retention in force when they were dropped")
    removed_at = serializers.DateTimeField()


class SamplesRemovedErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    samples_removed = SamplesRemovalSerializer()


PARTIAL_HELP = ("the comparison was cancelled: its analysis and verdicts cover only the blocks stored before "
                "the cancel (blocks_stored of blocks_planned)")


class ComparisonResultsSerializer(serializers.Serializer):
    comparison = serializers.UUIDField()
    status = serializers.ChoiceField(choices=Comparison.Status.choices)
    baseline_arm = serializers.CharField()
    arms = serializers.ListField(child=serializers.CharField())
    analysis_version = serializers.IntegerField(allow_null=True)
    groups = ResultGroupSerializer(many=True)
    stacks = ArmStacksSerializer(many=True, help_text="per arm, in arm order: the client stacks and servers its "
                                 "runs' fingerprints report (docs/methodology.md, which client and server)")
    analysis = AnalysisSerializer(required=False, help_text="absent until the comparison has been analysed")
    samples_removed = SamplesRemovalSerializer(
        allow_null=True, help_text="set when the sample retention dropped this comparison's samples: the analysis "
        "above stays, but the samples can no longer be exported (410) or analysed again")
    # The response's key; DRF's metaclass takes declared fields off the class, so this does not
    # replace a serializer's own `partial` flag.
    partial = serializers.BooleanField(help_text=PARTIAL_HELP)  # type: ignore[assignment]
    blocks_planned = serializers.IntegerField(allow_null=True, help_text="partial only: the blocks the runs planned")
    blocks_stored = serializers.IntegerField(allow_null=True, help_text="partial only: the blocks stored before the "
                                             "cancel, which the analysis covers")


# --- the CI verdict ------------------------------------------------------------------------------------


class VerdictGateSerializer(serializers.Serializer):
    statistic = GateStatisticField()
    metric = MetricField(help_text="the metric the verdicts judge: the spec's gate.metric (by default the "
                         "workload's: series_ms for a series, page_load_ms for a request list, total_ms otherwise)")
    metric_label = serializers.CharField(help_text="the metric in words, e.g. \"series time, periods 3–30\", "
                                         "\"per-request time\"")
    margin_pct = serializers.FloatField()
    alpha = serializers.FloatField()


class VerdictBaselineSerializer(serializers.Serializer):
    kind = BaselineKindField()
    comparison = serializers.UUIDField(allow_null=True, help_text="the baseline comparison (kind comparison)")
    arm = serializers.CharField(allow_null=True, help_text="the baseline arm (kind arm)")
    ref = serializers.CharField(allow_null=True, help_text="the `baseline` parameter as given (kind comparison)")


class ArmVerdictSerializer(serializers.Serializer):
    """One arm against its baseline on the gate's metric, one device class and profile."""

    arm = serializers.CharField()
    baseline_arm = serializers.CharField()
    baseline_comparison = serializers.UUIDField(allow_null=True)
    metric = MetricField()
    device = serializers.CharField(help_text="the device class")
    network_profile = serializers.CharField()
    outcome = VerdictOutcomeField()
    reason = serializers.CharField()
    margin = serializers.FloatField()
    ratio = serializers.FloatField(allow_null=True)
    ci95 = _interval()
    ci90 = _interval()
    p_value = serializers.FloatField(allow_null=True)
    p_adjusted = serializers.FloatField(allow_null=True)
    p_mann_whitney = serializers.FloatField(allow_null=True)
    cliffs_delta = serializers.FloatField(allow_null=True)
    cliffs_label = CliffsLabelField()
    cohens_d = serializers.FloatField(allow_null=True)
    cohens_label = CohensLabelField()
    gain_pct = serializers.FloatField(allow_null=True)
    speedup = serializers.FloatField(allow_null=True)
    change_pct = serializers.FloatField(allow_null=True)
    median_ms = _ms()
    baseline_median_ms = _ms()
    blocks = serializers.IntegerField()
    devices = serializers.IntegerField()
    more_blocks_needed = serializers.IntegerField(allow_null=True)
    scope = ComparisonScopeField(help_text="pooled: the headline of a device class (the overall outcome reads only "
                                 "these); device: one device of a class of several, beneath it")
    device_label = serializers.CharField(allow_null=True, help_text="the device of a `device` row")
    devices_disagree = serializers.BooleanField(help_text="pooled row: one device regresses and another improves")
    periods_disagree = serializers.BooleanField(help_text="pooled series-time row: one period regresses and another "
                                                "improves (flagged; the verdict stands)")
    blocks_to_decide = BlocksByOutcomeSerializer(
        allow_null=True, help_text="inconclusive only: per outcome, the total blocks per device at which it would be "
        "reached at the observed per-block mean and spread (null: not at that mean)")
    summary = serializers.CharField()


LookDecisionField = _enum("LookDecision", ["stop", "continue"],
                          "stop: decided or max blocks reached, the comparison finished with this look's verdict; "
                          "continue: not decided, the runs were extended to the next look")


class LookRowSerializer(serializers.Serializer):
    """One headline row (arm × device class × profile) at a look."""

    arm = serializers.CharField()
    device = serializers.CharField(help_text="the device class")
    network_profile = serializers.CharField()
    outcome = VerdictOutcomeField()
    ratio = serializers.FloatField(allow_null=True)
    ci95 = _interval()
    p_value = serializers.FloatField(allow_null=True)


class VerdictLookSerializer(serializers.Serializer):
    """One look of a run-until-decided comparison (docs/methodology.md, run until decided)."""

    look = serializers.IntegerField(help_text="1 for the first look")
    blocks_per_device = serializers.IntegerField()
    alpha = serializers.FloatField(help_text="the α this look tested at (alpha spending: the looks' α sum to the "
                                   "gate's α)")
    outcome = OverallOutcomeField()
    decision = LookDecisionField()
    ratio = serializers.FloatField(allow_null=True, help_text="the deciding row's ratio of medians")
    ci95 = serializers.ListField(child=serializers.FloatField(allow_null=True), min_length=2, max_length=2,
                                 allow_null=True, help_text="the deciding row's 95 % CI")
    p_value = serializers.FloatField(allow_null=True, help_text="the deciding row's p (block t-test)")
    verdicts = LookRowSerializer(many=True)
    at = serializers.DateTimeField()


class VerdictBesideSerializer(serializers.Serializer):
    """The other view of the same requests, shown beside the gate's metric and never gating:
    per-request time beside series time or page load, and the reverse."""

    metric = MetricField()
    metric_label = serializers.CharField()
    outcome = OverallOutcomeField(help_text="the worst of these verdicts, as the gate's own would be")
    disagrees = serializers.BooleanField(help_text="this outcome is not the gate's: say which metric gated")
    verdicts = ArmVerdictSerializer(many=True, help_text="the headline rows (one per device class and profile)")


class ComparisonVerdictSerializer(serializers.Serializer):
    comparison = serializers.UUIDField()
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=Comparison.Status.choices)
    url = serializers.URLField(help_text="the comparison on the dashboard")
    gate = VerdictGateSerializer()
    baseline = VerdictBaselineSerializer()
    verdicts = ArmVerdictSerializer(many=True)
    outcome = OverallOutcomeField()
    outcome_reason = serializers.CharField(help_text="why: which verdicts decided, or why there is nothing to judge")
    history = VerdictLookSerializer(many=True, help_text="run until decided: the verdict at each look, in order "
                                    "(the last is the verdict above); empty for a fixed number of blocks")
    beside = VerdictBesideSerializer(allow_null=True, help_text="the other metric's verdicts (per-request time "
                                     "beside a group metric, and the reverse), which do not gate; null when the "
                                     "analysis has none (a version 1 analysis, a workload without groups)")
    # The response's key; DRF's metaclass takes declared fields off the class, so this does not
    # replace a serializer's own `partial` flag.
    partial = serializers.BooleanField(help_text=PARTIAL_HELP)  # type: ignore[assignment]
    blocks_planned = serializers.IntegerField(allow_null=True, help_text="partial only: the blocks the runs planned")
    blocks_stored = serializers.IntegerField(allow_null=True, help_text="partial only: the blocks the verdicts rest "
                                             "on")


class VerdictHistorySerializer(serializers.Serializer):
    """A comparison's looks so far, also while it runs (the verdict itself waits for the end)."""

    comparison = serializers.UUIDField()
    status = serializers.ChoiceField(choices=Comparison.Status.choices)
    blocks_min = serializers.IntegerField(allow_null=True, help_text="run until decided: min blocks per device; "
                                          "null for a fixed number of blocks")
    blocks_max = serializers.IntegerField(allow_null=True, help_text="run until decided: max blocks per device")
    history = VerdictLookSerializer(many=True, help_text="the looks so far, in order")
