import { useEffect, useRef, type ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';

type PlotlyClick = { points?: { customdata?: unknown }[] };
type GraphDiv = HTMLElement & { on?: (event: 'plotly_click', handler: (event: PlotlyClick) => void) => void };

/** The comparison id a trend point carries as the last value of its customdata (build-trend-chart). */
export function comparisonOfClick(event: PlotlyClick): string | undefined {
  const data = event.points?.[0]?.customdata;
  const id = Array.isArray(data) ? (data[data.length - 1] as unknown) : undefined;
  return typeof id === 'string' && id ? id : undefined;
}

/**
 * Makes a Plotly chart's points open their comparison: once the chart inside is drawn, its
 * graph div gets a plotly_click handler (Plotly's own event API). The table under the chart
 * has the same links for keyboards and screen readers.
 */
export function PointLinks({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const navigate = useNavigate();
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const hooked = new WeakSet<Element>();
    const hook = () => {
      const graph = element.querySelector<GraphDiv>('.js-plotly-plot');
      if (!graph || hooked.has(graph) || typeof graph.on !== 'function') return;
      hooked.add(graph);
      graph.on('plotly_click', (event) => {
        const id = comparisonOfClick(event);
        if (id) void navigate(`/comparisons/${id}`);
      });
    };
    hook();
    const observer = new MutationObserver(hook);
    observer.observe(element, { subtree: true, attributes: true, attributeFilter: ['data-state', 'class'] });
    return () => observer.disconnect();
  }, [navigate]);
  return (
    <div ref={ref} className="trend-point-links">
      {children}
    </div>
  );
}
