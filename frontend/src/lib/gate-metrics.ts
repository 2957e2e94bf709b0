/**
 * The metrics the CI gate can judge, in words, and which a workload kind allows: read from the
 * spec's schema (each kind's gate metrics are a named enum there, its default first), never
 * copied from the validator.
 */
import {
  apiGateMetricValues,
  delaySweepGateMetricValues,
  mixedGateMetricValues,
  payloadSweepGateMetricValues,
  requestsGateMetricValues,
  seriesGateMetricValues,
} from '@/api/schema';
import type { GateMetric } from './api-types';

/** Per workload kind, the metrics `gate.metric` may name; the first is the kind's default. */
export const GATE_METRICS_BY_KIND: Record<string, readonly GateMetric[]> = {
  series: seriesGateMetricValues,
  requests: requestsGateMetricValues,
  api: apiGateMetricValues,
  mixed: mixedGateMetricValues,
  delay_sweep: delaySweepGateMetricValues,
  payload_sweep: payloadSweepGateMetricValues,
};

/** The gate metrics of a workload kind (per-request time for a kind the schema does not know). */
export function gateMetricsOf(kind: string): readonly GateMetric[] {
  return GATE_METRICS_BY_KIND[kind] ?? ['total_ms', 'ttfb_ms'];
}

const METRIC_WORDS: Record<string, string> = {
  total_ms: 'per-request time',
  ttfb_ms: 'time to first byte',
  series_ms: 'series time',
  page_load_ms: 'page load',
};

/** A metric in words ("series time"); an unknown one by its name. */
export function metricWords(metric: string): string {
  return METRIC_WORDS[metric] ?? metric;
}

/** Per-request metrics, as opposed to those of a whole series or page load. */
export function isPerRequest(metric: string): boolean {
  return metric === 'total_ms' || metric === 'ttfb_ms';
}

/** "series time, periods 3–30" → "Series time, periods 3–30". */
export function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
