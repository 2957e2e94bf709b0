import { useEffect, useRef, useState } from 'react';
import type * as PlotlyTypes from 'plotly.js';
import type { Config, Data, Layout } from 'plotly.js';
import { queueDraw } from './draw-queue';

type PlotlyModule = typeof PlotlyTypes;

let plotlyPromise: Promise<PlotlyModule> | undefined;
/**
 * Plotly, built with only the trace types the charts draw (plotly-charts.ts: ~1.1 MB against the
 * full bundle's 4.7 MB), loads once, on the first chart, as its own chunk, so only pages that draw
 * a chart ship it (this dynamic import is the only reference to it; the chart builders import
 * plotly.js's types only). Performance marks time the load for `make bench`.
 */
function loadPlotly(): Promise<PlotlyModule> {
  if (!plotlyPromise) {
    mark('latencylab:plotly-requested');
    plotlyPromise = import('./plotly-charts').then((module) => {
      mark('latencylab:plotly-loaded');
      return module.default;
    });
  }
  return plotlyPromise;
}

/**
 * Starts fetching Plotly without waiting for a chart (idempotent). Chart pages' route loaders call it
 * (src/app/router.tsx), so Plotly downloads and compiles while the page fetches its data, instead of
 * after the data has arrived. Pages without charts never call it, so they never load Plotly.
 */
export function preloadPlotly(): void {
  void loadPlotly().catch(() => {
    plotlyPromise = undefined; // a failed preload does not poison the chart's own attempt
  });
}

function mark(name: string): void {
  if (typeof performance !== 'undefined' && typeof performance.mark === 'function') performance.mark(name);
}

/** How many values a trace draws: finite y values (x for horizontal bars; boxes and scatters alike). */
export function countPoints(data: readonly Data[]): number {
  let points = 0;
  for (const trace of data) {
    const { x, y, orientation } = trace as { x?: unknown; y?: unknown; orientation?: unknown };
    const ys = orientation === 'h' ? x : y;
    if (!Array.isArray(ys)) continue;
    for (const y of ys) if (typeof y === 'number' && Number.isFinite(y)) points += 1;
  }
  return points;
}

const BASE_LAYOUT = {
  autosize: true,
  height: 340,
  margin: { l: 64, r: 16, t: 16, b: 56 },
  font: { family: 'Inter, system-ui, -apple-system, Segoe UI, Roboto, sans-serif', size: 12, color: '#1f2937' },
  paper_bgcolor: 'rgba(0,0,0,0)',
  plot_bgcolor: 'rgba(0,0,0,0)',
  // Every legend in one row (or more) along the figure's top edge, above the plot.
  legend: { orientation: 'h', x: 0, xanchor: 'left', y: 1, yref: 'container', yanchor: 'top' },
  hoverlabel: { bgcolor: '#111827', font: { color: '#f9fafb' } },
} satisfies Partial<Layout>;

/**
 * The top margin a chart with a legend starts with: one row of legend (Plotly makes it ~29 px) and a
 * gap. A legend that does not fit its margin makes Plotly widen the margin and lay the chart out a
 * second time, ~5 ms of a page's main thread per chart; with the room reserved, only a legend that
 * wraps to more rows does.
 */
export const LEGEND_ROW_PX = 40;

/** The chart's layout over the base: its legend and margin merged key by key, room kept for the legend. */
export function chartLayout(data: readonly Data[], layout: Partial<Layout>): Partial<Layout> {
  const margin = { ...BASE_LAYOUT.margin, ...layout.margin };
  if (showsLegend(data, layout)) margin.t = Math.max(margin.t, LEGEND_ROW_PX);
  return { ...BASE_LAYOUT, ...layout, legend: { ...BASE_LAYOUT.legend, ...layout.legend }, margin };
}

/** Plotly's own rule: a legend when asked for, else when two or more traces would be listed in it. */
function showsLegend(data: readonly Data[], layout: Partial<Layout>): boolean {
  if (layout.showlegend !== undefined) return layout.showlegend;
  const traces = data as readonly { showlegend?: boolean; visible?: unknown }[];
  const listed = traces.filter((trace) => trace.showlegend !== false && trace.visible !== false);
  return listed.length > 1 || traces.some((trace) => trace.showlegend === true);
}

const CONFIG: Partial<Config> = {
  responsive: true,
  displaylogo: false,
  modeBarButtonsToRemove: ['lasso2d', 'select2d'],
};

type PlotProps = {
  data: Data[];
  layout: Partial<Layout>;
  /** data-testid of the chart container, e.g. "chart-avg". */
  testId: string;
  /** Accessible name of the chart. */
  label: string;
};

/**
 * A thin Plotly wrapper. The container exposes `data-points` (values drawn) and
 * `data-state` (loading | ready | error) so tests can check that a chart carries data.
 * Charts are drawn through the draw queue (draw-queue.ts): one at a time, the visible ones first.
 */
export function Plot({ data, layout, testId, label }: PlotProps) {
  const figureRef = useRef<HTMLDivElement>(null);
  const containerRef = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<'loading' | 'ready' | 'error'>('loading');

  useEffect(() => {
    const figure = figureRef.current;
    const element = containerRef.current;
    if (!figure || !element) return;
    let cancelled = false;
    const draw = () =>
      loadPlotly()
        .then((Plotly) => (cancelled ? undefined : Plotly.react(element, data, chartLayout(data, layout), CONFIG)))
        .then(
          () => {
            if (!cancelled) setState('ready');
          },
          () => {
            if (!cancelled) setState('error');
          },
        );
    const unqueue = queueDraw(figure, draw);
    return () => {
      cancelled = true;
      unqueue();
    };
  }, [data, layout]);

  useEffect(() => {
    const element = containerRef.current;
    return () => {
      if (element && plotlyPromise) void plotlyPromise.then((Plotly) => Plotly.purge(element));
    };
  }, []);

  return (
    <div
      ref={figureRef}
      className="plot"
      role="figure"
      aria-label={label}
      data-testid={testId}
      data-points={countPoints(data)}
      data-state={state}
      // Until drawn, the chart holds its drawn height, so the page does not jump as charts appear.
      style={{ minHeight: layout.height ?? BASE_LAYOUT.height }}
    >
      {/* Its own size, so the page's layout never waits on Plotly's (styles.css, .plot-canvas). */}
      <div ref={containerRef} className="plot-canvas" style={{ height: layout.height ?? BASE_LAYOUT.height }} />
      {state === 'error' && <p className="muted">The chart could not be drawn.</p>}
    </div>
  );
}
