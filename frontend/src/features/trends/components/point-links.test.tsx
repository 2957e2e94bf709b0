import { screen } from '@testing-library/react';
import { useEffect, useRef } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/testing/test-utils';
import { comparisonOfClick, PointLinks } from './point-links';

type Handler = (event: { points?: { customdata?: unknown }[] }) => void;
const handlers: Handler[] = [];

/** Stands in for the Plot: a graph div with Plotly's `on`, given its class once "drawn". */
function FakeChart() {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const div: (HTMLDivElement & { on?: (event: string, h: Handler) => void }) | null = ref.current;
    if (!div) return;
    div.on = (_event: string, handler: Handler) => handlers.push(handler);
    div.className = 'js-plotly-plot';
  }, []);
  return <div ref={ref} />;
}

describe('trend point links', () => {
  it('reads the comparison id from the clicked point', () => {
    expect(comparisonOfClick({ points: [{ customdata: ['name', 'abc', '1.0', 'Regression', '', 'Pixel 8 / lte', 'id-1'] }] })).toBe('id-1');
    expect(comparisonOfClick({ points: [] })).toBeUndefined();
    expect(comparisonOfClick({})).toBeUndefined();
  });

  it("opens the clicked point's comparison", async () => {
    const { router } = renderWithProviders(
      <PointLinks>
        <FakeChart />
      </PointLinks>,
      { path: '/trends', routePath: '/trends', extraRoutes: [{ path: '/comparisons/:id', element: <h1>Comparison</h1> }] },
    );
    await vi.waitFor(() => expect(handlers).toHaveLength(1));
    handlers[0]?.({ points: [{ customdata: ['n', 'c', 'v', 'Regression', '', 'd', 'cmp-42'] }] });
    expect(await screen.findByRole('heading', { name: 'Comparison' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/comparisons/cmp-42');
  });
});
