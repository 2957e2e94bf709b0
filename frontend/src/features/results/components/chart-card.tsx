import type { ReactNode } from 'react';
import { Plot } from './plot';
import type { ChartSpec } from './build-charts';

type ChartCardProps = {
  title: string;
  subtitle: string;
  testId: string;
  chart: ChartSpec;
  note?: ReactNode;
  wide?: boolean;
};

export function ChartCard({ title, subtitle, testId, chart, note, wide = false }: ChartCardProps) {
  return (
    <section className={wide ? 'card chart-card chart-card-wide' : 'card chart-card'} aria-label={title}>
      <header className="chart-card-header">
        <h3>{title}</h3>
        <p className="chart-subtitle">{subtitle}</p>
      </header>
      <Plot data={chart.data} layout={chart.layout} testId={testId} label={`${title}, ${subtitle}`} />
      {note && <p className="chart-note">{note}</p>}
    </section>
  );
}
