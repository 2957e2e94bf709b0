/**
 * How each arm looks in every chart: a colour from the Okabe–Ito palette (distinguishable
 * with the common colour-vision deficiencies) and, so charts also survive greyscale printing
 * and the rarer deficiencies, a marker symbol, a line dash and a bar hatching of its own.
 * Index i of the comparison's arm order gets entry i of every list, in every chart builder.
 */
import type { Dash, PatternShape } from 'plotly.js';

/** Okabe & Ito (2008), most distinct first; yellow (#F0E442) left out: unreadable on white. */
export const ARM_COLORS = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#000000', '#8C6D1F'];
export const ARM_SYMBOLS = ['circle', 'square', 'diamond', 'triangle-up', 'x', 'cross', 'star', 'triangle-down'];
/** Plotly's named dashes; arms 7 and 8 repeat the first two with other markers and colours. */
export const ARM_DASHES: Dash[] = ['solid', 'dash', 'dot', 'dashdot', 'longdash', 'longdashdot'];
/** Plotly `marker.pattern.shape`: the first arm solid, the others hatched. */
export const ARM_PATTERNS: PatternShape[] = ['', '/', '.', 'x', '\\', '+', '-', '|'];

export type ArmStyle = { color: string; symbol: string; dash: Dash; pattern: PatternShape };

/** The arm's position in the comparison's arm order (unknown arms: after the known ones). */
function armIndex(arms: readonly string[], arm: string): number {
  const index = arms.indexOf(arm);
  return index >= 0 ? index : arms.length;
}

function pick<T>(list: readonly T[], index: number): T {
  return list[index % list.length] as T;
}

export function armStyle(arms: readonly string[], arm: string): ArmStyle {
  const index = armIndex(arms, arm);
  return {
    color: pick(ARM_COLORS, index),
    symbol: pick(ARM_SYMBOLS, index),
    dash: pick(ARM_DASHES, index),
    pattern: pick(ARM_PATTERNS, index),
  };
}

export function armColor(arms: readonly string[], arm: string): string {
  return armStyle(arms, arm).color;
}

/** A line trace's `line` and `marker` for an arm. */
export function armLine(arms: readonly string[], arm: string, { width = 2, size = 7 } = {}) {
  const style = armStyle(arms, arm);
  return {
    line: { color: style.color, width, dash: style.dash },
    marker: { color: style.color, symbol: style.symbol, size },
  };
}

/** The hatching of bars, over their colour (white lines, so the bar's colour stays readable). */
export function barPattern(shape: PatternShape | PatternShape[]) {
  return { shape, fillmode: 'overlay' as const, fgcolor: '#ffffff', fgopacity: 0.85, size: 7, solidity: 0.3 };
}

/** A bar trace's `marker` for an arm: its colour, a dark outline and its hatching. */
export function armBarMarker(arms: readonly string[], arm: string) {
  const style = armStyle(arms, arm);
  return { color: style.color, line: { color: '#1f2937', width: 0.75 }, pattern: barPattern(style.pattern) };
}

/** A bar trace whose bars are arms (one bar per arm): per-bar colours and hatchings. */
export function armsBarMarker(arms: readonly string[], shown: readonly string[]) {
  const styles = shown.map((arm) => armStyle(arms, arm));
  return {
    color: styles.map((style) => style.color),
    line: { color: '#1f2937', width: 0.75 },
    pattern: barPattern(styles.map((style) => style.pattern)),
  };
}
