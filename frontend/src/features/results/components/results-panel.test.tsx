import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { server } from '@/testing/mocks/server';
import { renderWithProviders } from '@/testing/test-utils';
import {
  apiResultsFixture,
  delaySweepResultsFixture,
  payloadSweepResultsFixture,
  resultsFixture,
} from '@/testing/fixtures';
import type { ComparisonResults } from '@/lib/api-types';
import { ResultsPanel } from './results-panel';

function serve(results: ComparisonResults) {
  server.use(http.get('*/api/v1/comparisons/:id/results', () => HttpResponse.json(results)));
  return renderWithProviders(<ResultsPanel comparisonId={results.comparison} live={false} />);
}

const ready = async (testId: string) => {
  const chart = await screen.findByTestId(testId);
  expect(chart).toHaveAttribute('data-state', 'ready');
  return chart;
};

describe('results panel: the other presets', () => {
  it('draws the delay sweep with device and profile in the subtitle, and no series charts', async () => {
    serve(delaySweepResultsFixture);
    const added = await screen.findByTestId('chart-delay-added');
    expect(Number(added.getAttribute('data-points'))).toBe(41 * 2);
    await ready('chart-delay-added');
    expect(screen.getByTestId('chart-delay-measured')).toHaveAttribute('data-points', String(41 * 2));
    const card = added.closest('section') as HTMLElement;
    expect(within(card).getByText('pixel-8-android-14 · network profile: none')).toBeInTheDocument();
    expect(screen.queryByTestId('chart-avg')).not.toBeInTheDocument();
    expect(screen.queryByTestId('chart-payload')).not.toBeInTheDocument();
    expect(screen.getByTestId('chart-distribution')).toBeInTheDocument();
    // Two devices, one profile: the group selector switches device, no profile comparison.
    expect(screen.getByLabelText('Device and network')).toBeInTheDocument();
    expect(screen.queryByTestId('chart-profiles')).not.toBeInTheDocument();
    expect(screen.getByTestId('verdict-banner')).toHaveAttribute('data-outcome', 'inconclusive');
  });

  it('draws the payload sweep and the verdict of the fixed build', async () => {
    serve(payloadSweepResultsFixture);
    const payload = await screen.findByTestId('chart-payload');
    expect(Number(payload.getAttribute('data-points'))).toBeGreaterThan(16 * 2);
    expect(screen.getByTestId('verdict-banner')).toHaveAttribute('data-outcome', 'improvement');
    expect(within(screen.getByTestId('effect-table')).getAllByRole('row')).toHaveLength(1 + 2);
  });

  it('draws first vs rest for API calls', async () => {
    serve(apiResultsFixture);
    expect(await screen.findByTestId('chart-first-rest')).toHaveAttribute('data-points', '6');
    expect(screen.getByText(/Handshake cost \(first − rest, median\): h1/)).toBeInTheDocument();
    expect(screen.queryByLabelText('Device and network')).not.toBeInTheDocument();
  });
});

describe('results panel: verdict and profiles', () => {
  it('shows the verdict and effect table only once the comparison is finished', async () => {
    serve({ ...resultsFixture, status: 'analysing' });
    await screen.findByTestId('chart-avg');
    expect(screen.queryByTestId('verdict-banner')).not.toBeInTheDocument();
    expect(screen.queryByTestId('effect-table')).not.toBeInTheDocument();
  });

  it('compares one arm across network profiles and follows the arm picker', async () => {
    const { user } = serve(resultsFixture);
    const profiles = await screen.findByTestId('chart-profiles');
    expect(profiles).toHaveAttribute('data-points', '2');
    expect(screen.getByTestId('chart-profiles-series')).toHaveAttribute('data-points', '20');
    const section = screen.getByRole('region', { name: 'Compare across network profiles' });
    expect(within(section).getAllByText('https-h1 on host-lab-1 · network profiles: transatlantic, none')).toHaveLength(2);

    await user.selectOptions(within(section).getByLabelText('Arm'), 'h3');
    expect(within(section).getAllByText('h3 on host-lab-1 · network profiles: transatlantic, none')).toHaveLength(2);
    expect(screen.getByTestId('verdict-banner')).toBeInTheDocument();
    expect(screen.getByTestId('effect-table')).toBeInTheDocument();
  });

  it('keeps the series charts for the selected group and redraws the analysis charts on switch', async () => {
    const { user } = serve(resultsFixture);
    await screen.findByTestId('chart-avg');
    const distribution = screen.getByTestId('chart-distribution');
    expect(distribution.closest('section')).toHaveTextContent('host-lab-1 · network profile: transatlantic');
    await user.selectOptions(screen.getByLabelText('Device and network'), '1');
    expect(screen.getByTestId('chart-distribution').closest('section')).toHaveTextContent(
      'host-lab-1 · network profile: none',
    );
    expect(screen.getByTestId('chart-first-rest')).toBeInTheDocument();
  });
});
