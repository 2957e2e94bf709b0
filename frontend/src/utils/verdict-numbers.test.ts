import { describe, expect, it } from 'vitest';
// The vectors every writer of verdict numbers passes: the backend, the CLI and this dashboard.
import vectors from '../../../device-runner/contract/latencylab_contract/verdict-format-vectors.json';
import { formatChangePct, formatChangeWithCi, formatFixed, formatMarginPct, formatP, formatSigned } from './format';

type Input = number | string | null;
interface Case {
  value: Input;
  text: string;
  ci?: Input[] | null;
  digits?: number;
}

/** JSON has no infinities or NaN: the vectors spell them as strings. */
function number(value: Input): number | null {
  if (typeof value !== 'string') return value;
  return { inf: Infinity, '-inf': -Infinity, nan: NaN }[value] ?? NaN;
}

const writers: Record<string, (c: Case) => string> = {
  effect_pct: (c) => formatChangePct(number(c.value)),
  effect_with_ci: (c) => formatChangeWithCi(number(c.value), c.ci ? c.ci.map(number) : null),
  margin_pct: (c) => formatMarginPct(number(c.value)),
  signed: (c) => formatSigned(number(c.value)),
  fixed: (c) => formatFixed(number(c.value), c.digits ?? 0),
  p_value: (c) => formatP(number(c.value)),
};

describe('verdict numbers by the shared rule (device-runner/contract/latencylab_contract/verdict-format-vectors.json)', () => {
  const kinds = vectors.vectors as Record<string, Case[]>;

  it('has a writer for every kind of vector', () => {
    expect(Object.keys(kinds).sort()).toEqual(Object.keys(writers).sort());
  });

  it('writes every vector as the backend and the CLI do', () => {
    // One assertion listing every mismatch, so a change of rule shows all it breaks at once.
    const mismatches: string[] = [];
    for (const [kind, cases] of Object.entries(kinds)) {
      for (const c of cases) {
        const text = writers[kind]!(c);
        if (text !== c.text) mismatches.push(`${kind}(${JSON.stringify(c.value)}): ${text}, not ${c.text}`);
      }
    }
    expect(mismatches).toEqual([]);
    expect(Object.values(kinds).flat().length).toBeGreaterThan(70);
  });

  it('rounds ties away from zero where toFixed would not', () => {
    expect(formatChangePct(10.5)).toBe('+11 %');
    expect((0.15).toFixed(1)).toBe('0.1'); // the artefact this rule avoids
    expect(formatChangePct(0.15)).toBe('+0.2 %');
  });
});
