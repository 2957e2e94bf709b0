import { formatMs } from '@/utils/format';
import type { HomeSparkline } from '../api/get-home';

const WIDTH = 150;
const HEIGHT = 32;
const PAD = 3;
// The bars' share of the width when each arm's median is one bar; its label takes the rest.
const BAR_WIDTH = 50;
// Arms told apart by dash pattern and end marker as well as colour.
const STYLES = [
  { color: '#1d4ed8', dash: '', marker: 'circle' },
  { color: '#c2410c', dash: '4 2', marker: 'square' },
  { color: '#047857', dash: '1 2', marker: 'triangle' },
  { color: '#7c3aed', dash: '6 2 1 2', marker: 'diamond' },
] as const;

/** What the sparkline says, for screen readers and the tooltip. */
export function sparklineLabel(spark: HomeSparkline): string {
  const values = (v: (number | null)[]) => v.filter((x): x is number => typeof x === 'number');
  if (spark.kind === 'periods') {
    const parts = spark.series.map((s) => {
      const v = values(s.values);
      return v.length ? `${s.arm} ${formatMs(v[0])} to ${formatMs(v[v.length - 1])}` : `${s.arm} no data`;
    });
    return `Median request time per period (${spark.x.join(', ')}) on ${spark.device} / ${spark.profile}: ${parts.join('; ')}`;
  }
  const parts = spark.series.map((s) => `${s.arm} ${formatMs(values(s.values)[0])}`);
  return `Median request time per arm on ${spark.device} / ${spark.profile}: ${parts.join('; ')}`;
}

function Marker({ x, y, shape, color }: { x: number; y: number; shape: string; color: string }) {
  if (shape === 'square') return <rect x={x - 2} y={y - 2} width={4} height={4} fill={color} />;
  if (shape === 'triangle') return <path d={`M${x},${y - 2.5} L${x + 2.5},${y + 2} L${x - 2.5},${y + 2} Z`} fill={color} />;
  if (shape === 'diamond') return <path d={`M${x},${y - 3} L${x + 3},${y} L${x},${y + 3} L${x - 3},${y} Z`} fill={color} />;
  return <circle cx={x} cy={y} r={2.2} fill={color} />;
}

/** A small chart of each arm: its median per period as a line, or (no periods) one bar per arm. */
export function Sparkline({ spark }: { spark: HomeSparkline }) {
  const label = sparklineLabel(spark);
  const all = spark.series.flatMap((s) => s.values).filter((v): v is number => typeof v === 'number');
  if (all.length === 0) return <span className="muted">–</span>;
  const max = Math.max(...all);
  const min = spark.kind === 'periods' ? Math.min(...all) : 0;
  const span = max - min || 1;
  const y = (v: number) => HEIGHT - PAD - ((v - min) / span) * (HEIGHT - 2 * PAD);
  return (
    <svg
      className="sparkline"
      width={WIDTH}
      height={HEIGHT}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={label}
      data-testid="sparkline"
      data-kind={spark.kind}
    >
      <title>{label}</title>
      {spark.kind === 'periods'
        ? spark.series.map((s, i) => {
            const style = STYLES[i % STYLES.length] ?? STYLES[0];
            const step = spark.x.length > 1 ? (WIDTH - 2 * PAD) / (spark.x.length - 1) : 0;
            const pts = s.values
              .map((v, j) => (typeof v === 'number' ? [PAD + j * step, y(v)] : null))
              .filter((p): p is number[] => p !== null);
            const last = pts[pts.length - 1];
            return (
              <g key={s.arm}>
                <polyline
                  points={pts.map(([px, py]) => `${px},${py}`).join(' ')}
                  fill="none"
                  stroke={style.color}
                  strokeWidth={1.5}
                  strokeDasharray={style.dash}
                />
                {last && <Marker x={last[0] ?? 0} y={last[1] ?? 0} shape={style.marker} color={style.color} />}
              </g>
            );
          })
        : spark.series.map((s, i) => {
            // One bar per arm, labelled with the arm and its median (no periods to draw a line over).
            const style = STYLES[i % STYLES.length] ?? STYLES[0];
            const value = s.values.find((v): v is number => typeof v === 'number') ?? 0;
            const rowHeight = HEIGHT / spark.series.length;
            const width = Math.max(2, (value / max) * BAR_WIDTH);
            return (
              <g key={s.arm}>
                <rect x={0} y={i * rowHeight + 1} width={width} height={rowHeight - 3} fill={style.color} />
                <text x={BAR_WIDTH + 4} y={(i + 1) * rowHeight - 3} fontSize={9} fill="#344054">
                  {s.arm} {formatMs(value)}
                </text>
              </g>
            );
          })}
    </svg>
  );
}
