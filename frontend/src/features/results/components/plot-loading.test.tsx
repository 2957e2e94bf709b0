import { render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Plot, preloadPlotly } from './plot';

const marks = (name: string) => performance.getEntriesByName(name).length;

describe('Plotly loading', () => {
  it('is not loaded by importing the chart module, and is loaded once however often a chart page asks', async () => {
    // Importing plot.tsx (as every page's bundle does) asks for nothing.
    expect(marks('latencylab:plotly-requested')).toBe(0);
    preloadPlotly();
    expect(marks('latencylab:plotly-requested')).toBe(1);
    await waitFor(() => expect(marks('latencylab:plotly-loaded')).toBe(1));
    // Once: a second chart page reuses the same module.
    preloadPlotly();
    expect(marks('latencylab:plotly-requested')).toBe(1);
  });

  it('holds a chart’s drawn height while it waits for its turn, so the page does not jump', async () => {
    render(
      <>
        <Plot data={[{ type: 'bar', x: ['a'], y: [1] }]} layout={{ height: 520 }} testId="tall" label="tall" />
        <Plot data={[{ type: 'bar', x: ['a'], y: [2] }]} layout={{}} testId="default" label="default" />
      </>,
    );
    expect(screen.getByTestId('tall')).toHaveStyle({ minHeight: '520px' });
    expect(screen.getByTestId('default')).toHaveStyle({ minHeight: '340px' });
    expect(screen.getByTestId('tall')).toHaveAttribute('data-state', 'loading');
    await waitFor(() => expect(screen.getByTestId('default')).toHaveAttribute('data-state', 'ready'));
    expect(screen.getByTestId('tall')).toHaveAttribute('data-state', 'ready');
  });
});
