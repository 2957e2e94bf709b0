import { armStyle } from './arm-style';

/** The arm's chart marker as a character, so tables match the charts without colour too. */
const GLYPHS: Record<string, string> = {
  circle: '●',
  square: '■',
  diamond: '◆',
  'triangle-up': '▲',
  x: '✕',
  cross: '✚',
  star: '★',
  'triangle-down': '▼',
};

/** An arm's colour and marker symbol beside its name (decorative: the name follows). */
export function ArmSwatch({ arms, arm }: { arms: readonly string[]; arm: string }) {
  const style = armStyle(arms, arm);
  return (
    // The glyph comes from CSS (::before), so copying an arm's line copies no symbol.
    <span
      className="swatch-symbol"
      style={{ color: style.color }}
      aria-hidden="true"
      data-symbol={style.symbol}
      data-glyph={GLYPHS[style.symbol] ?? '●'}
    />
  );
}
