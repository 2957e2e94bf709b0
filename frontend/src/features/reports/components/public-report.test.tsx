import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { publicReportFixture } from '../testing/fixtures';
import type { PublicReport } from '../types';
import { PublicReportView } from './public-report';

const [phoneRun] = publicReportFixture.method.runs;

function reportWith(runs: PublicReport['method']['runs']): PublicReport {
  return { ...publicReportFixture, method: { ...publicReportFixture.method, runs } };
}

describe('public report on the phone simulator', () => {
  it('says above the verdict, and beside each device, which devices were the JVM stand-in', () => {
    const simulated = { ...phoneRun!, device: 'Pixel 8 (simulated)', stand_in: 'jvm' };
    render(<PublicReportView report={reportWith([phoneRun!, simulated])} renderResults={() => null} />);
    expect(screen.getByRole('note')).toHaveTextContent('1 of 2 devices of this comparison was');
    const runs = within(screen.getByRole('region', { name: 'Method' })).getByRole('table', { name: 'Runs' });
    const [, real, standIn] = within(runs).getAllByRole('row');
    expect(within(standIn!).getByTestId('stand-in-tag')).toHaveTextContent('simulated phone (JVM stand-in)');
    expect(within(real!).queryByTestId('stand-in-tag')).toBeNull();
  });

  it('says nothing of stand-ins when phones measured every run', () => {
    render(<PublicReportView report={reportWith([phoneRun!])} renderResults={() => null} />);
    expect(screen.queryByTestId('stand-in-notice')).toBeNull();
    expect(screen.queryByTestId('stand-in-tag')).toBeNull();
  });
});
