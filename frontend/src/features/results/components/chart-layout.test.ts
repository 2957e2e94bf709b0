import type { Data } from 'plotly.js';
import { describe, expect, it } from 'vitest';
import { chartLayout, LEGEND_ROW_PX } from './plot';

const two: Data[] = [
  { type: 'bar', name: 'h1', x: ['a'], y: [1] },
  { type: 'bar', name: 'h2', x: ['a'], y: [2] },
];

describe('a chart’s layout over the base', () => {
  it('keeps room for a legend in the top margin, so Plotly need not widen it and draw twice', () => {
    expect(chartLayout(two, {}).margin?.t).toBe(LEGEND_ROW_PX);
    // A chart's own larger top margin stands; a smaller one is raised.
    expect(chartLayout(two, { margin: { t: 60 } }).margin?.t).toBe(60);
    expect(chartLayout(two, { margin: { t: 10, l: 260 } }).margin).toMatchObject({ t: LEGEND_ROW_PX, l: 260, r: 16, b: 56 });
  });

  it('keeps no legend room where Plotly draws no legend', () => {
    expect(chartLayout([two[0]!], {}).margin?.t).toBe(16);
    expect(chartLayout(two, { showlegend: false }).margin?.t).toBe(16);
    const hidden: Data[] = two.map((trace) => ({ ...trace, showlegend: false }));
    expect(chartLayout(hidden, {}).margin?.t).toBe(16);
    // One trace asked to be listed gets a legend (Plotly's rule too).
    expect(chartLayout([{ ...two[0]!, showlegend: true }], {}).margin?.t).toBe(LEGEND_ROW_PX);
  });

  it('merges the chart’s legend into the base legend key by key', () => {
    const legend = chartLayout(two, { legend: { title: { text: 'concurrency: parallel 4' } } }).legend;
    expect(legend).toMatchObject({ orientation: 'h', yref: 'container', y: 1, yanchor: 'top', title: { text: 'concurrency: parallel 4' } });
  });
});
