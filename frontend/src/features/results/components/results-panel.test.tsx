import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { server } from '@/testing/mocks/server';
import { renderWithProviders } from '@/testing/test-utils';
import {
  apiResultsFixture,
  delaySweepResultsFixture,
  parallelResultsFixture,
  payloadSweepResultsFixture,
  resultsFixture,
  storedV1ResultsFixture,
  ttfbVerdictFixture,
} from '@/testing/fixtures';
import type { ComparisonResults } from '@/lib/api-types';
import { ResultsPanel } from './results-panel';

function serve(results: ComparisonResults) {
  server.use(http.get('*/api/v1/comparisons/:id/results', () => HttpResponse.json(results)));
  return renderWithProviders(<ResultsPanel comparisonId={results.comparison} live={false} />);
}

/** The chart once Plotly has drawn it (it loads lazily, after the data; charts are drawn one at a
 * time, in page order, so a late chart waits for the ones above it). */
const ready = async (testId: string) => {
  await waitFor(() => expect(screen.getByTestId(testId)).toHaveAttribute('data-state', 'ready'));
  return screen.getByTestId(testId);
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
    // Two devices, one profile: the device filter switches device, no profile filter nor comparison.
    expect(screen.getByLabelText('Device')).toBeInTheDocument();
    expect(screen.queryByLabelText('Network profile')).not.toBeInTheDocument();
    expect(screen.queryByTestId('chart-profiles')).not.toBeInTheDocument();
    // Both arms fetch the same delays in every block, so the per-block effects are tight: equivalent.
    expect(await screen.findByTestId('verdict-banner')).toHaveAttribute('data-outcome', 'equivalent');
  });

  it('draws the payload sweep and the verdict of the fixed build', async () => {
    serve(payloadSweepResultsFixture);
    const payload = await screen.findByTestId('chart-payload');
    // Every size of both arms (16 × 2), plus a marker per stalled band when the analysis has the detector.
    expect(Number(payload.getAttribute('data-points'))).toBeGreaterThanOrEqual(16 * 2);
    expect(await screen.findByTestId('verdict-banner')).toHaveAttribute('data-outcome', 'improvement');
    // Three Pixel 8s pooled, each beneath its class, on two metrics: header + 2 × (1 + 3).
    expect(within(screen.getByTestId('effect-table')).getAllByRole('row')).toHaveLength(1 + 2 * (1 + 3));
  });

  it('draws first vs rest for API calls', async () => {
    serve(apiResultsFixture);
    expect(await screen.findByTestId('chart-first-rest')).toHaveAttribute('data-points', '6');
    expect(screen.getByText(/Handshake cost \(first − rest, median\): h1/)).toBeInTheDocument();
    expect(screen.queryByLabelText('Device')).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Network profile')).not.toBeInTheDocument();
  });
});

describe('results panel: phases and devices', () => {
  it('draws the phase breakdown for the selected group, with the note on medians', async () => {
    serve(apiResultsFixture);
    const phases = await ready('chart-phases');
    expect(Number(phases.getAttribute('data-points'))).toBe(5 * 3 - 1 + 3);
    const card = phases.closest('section') as HTMLElement;
    expect(within(card).getByText(/don't add up to the median total/)).toBeInTheDocument();
    // One device: no small multiples.
    expect(screen.queryByTestId('chart-devices')).not.toBeInTheDocument();
  });

  it('shows per-device small multiples when the comparison ran on several devices', async () => {
    const { user } = serve(delaySweepResultsFixture);
    const devices = await ready('chart-devices');
    expect(devices).toHaveAttribute('data-points', String(2 * 2));
    expect(screen.getByText('2 devices · network profile: none')).toBeInTheDocument();
    // The phase chart follows the group selector.
    const phases = await ready('chart-phases');
    expect(phases.closest('section')).toHaveTextContent('pixel-8-android-14');
    await user.selectOptions(screen.getByLabelText('Device'), 'iphone-15-ios-17.4');
    expect(screen.getByTestId('chart-phases').closest('section')).toHaveTextContent('iphone-15-ios-17.4');
  });

  it("shows the server's verdict, on the gate's metric, and orders the effect table by it", async () => {
    server.use(
      http.get('*/api/v1/comparisons/:id/results', () => HttpResponse.json(resultsFixture)),
      http.get('*/api/v1/comparisons/:id/verdict', () => HttpResponse.json(ttfbVerdictFixture)),
    );
    renderWithProviders(<ResultsPanel comparisonId={resultsFixture.comparison} live={false} />);
    const banner = await screen.findByTestId('verdict-banner');
    expect(banner).toHaveAttribute('data-metric', 'ttfb_ms');
    expect(banner).toHaveTextContent('Median time to first byte of each arm');
    const rows = within(screen.getByTestId('effect-table')).getAllByRole('row').slice(1);
    expect(rows[0]).toHaveAttribute('data-metric', 'ttfb_ms');
  });

  it('shows no verdict banner when the server has none for it (e.g. 409)', async () => {
    server.use(
      http.get('*/api/v1/comparisons/:id/verdict', () =>
        HttpResponse.json({ detail: 'The comparison is failed; its verdict exists once it is finished.' }, { status: 409 }),
      ),
    );
    serve(resultsFixture);
    await screen.findByTestId('effect-table');
    expect(screen.queryByTestId('verdict-banner')).not.toBeInTheDocument();
  });
});

describe('results panel: samples removed by retention', () => {
  it('says when and by which retention, and still draws the stored analysis', async () => {
    serve({ ...resultsFixture, samples_removed: { retention_days: 90, removed_at: '2026-11-26T10:00:00+00:00' } });
    const notice = await screen.findByTestId('samples-removed');
    expect(notice).toHaveTextContent('removed by the 90-day sample retention on 26 Nov 2026');
    expect(notice).toHaveTextContent('can no longer be downloaded');
    await screen.findByTestId('chart-avg');
  });

  it('says nothing while the samples are kept', async () => {
    serve(resultsFixture);
    await screen.findByTestId('chart-avg');
    expect(screen.queryByTestId('samples-removed')).not.toBeInTheDocument();
  });
});

describe('results panel: verdict and profiles', () => {
  it('shows the verdict and effect table only once the comparison is finished', async () => {
    serve({ ...resultsFixture, status: 'analysing' });
    await screen.findByTestId('chart-avg');
    expect(screen.queryByTestId('verdict-banner')).not.toBeInTheDocument();
    expect(screen.queryByTestId('effect-table')).not.toBeInTheDocument();
  });

  it("shows a cancelled comparison's partial verdict and effect table, but offers no other baseline", async () => {
    const asked: string[] = [];
    server.use(
      http.get('*/api/v1/comparisons/:id/verdict', ({ request }) => {
        asked.push(new URL(request.url).search);
        return HttpResponse.json({ ...ttfbVerdictFixture, status: 'cancelled' });
      }),
    );
    serve({ ...resultsFixture, status: 'cancelled', partial: true, blocks_planned: 12, blocks_stored: 5 });
    expect(await screen.findByTestId('verdict-banner')).toBeInTheDocument();
    expect(screen.getByTestId('effect-table')).toBeInTheDocument();
    expect(asked).toEqual(['']);
    expect(screen.queryByRole('form', { name: 'Baseline' })).not.toBeInTheDocument();
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
    expect(await screen.findByTestId('verdict-banner')).toBeInTheDocument();
    expect(screen.getByTestId('effect-table')).toBeInTheDocument();
  });

  it('keeps the series charts for the selected group and redraws the analysis charts on switch', async () => {
    const { user } = serve(resultsFixture);
    await screen.findByTestId('chart-avg');
    const distribution = screen.getByTestId('chart-distribution');
    expect(distribution.closest('section')).toHaveTextContent('host-lab-1 · network profile: transatlantic');
    expect(screen.queryByLabelText('Device')).not.toBeInTheDocument(); // one device
    await user.selectOptions(screen.getByLabelText('Network profile'), 'none');
    expect(screen.getByTestId('chart-distribution').closest('section')).toHaveTextContent(
      'host-lab-1 · network profile: none',
    );
    expect(screen.getByTestId('chart-first-rest')).toBeInTheDocument();
  });
});

describe('results panel: the banner and the charts never contradict each other', () => {
  it('says beside the per-request table that the gate judged series time, and what per-request time says', async () => {
    serve(parallelResultsFixture);
    const banner = await screen.findByTestId('verdict-banner');
    expect(banner).toHaveAttribute('data-outcome', 'improvement');
    expect(within(banner).getByTestId('verdict-beside')).toHaveAttribute('data-disagrees', 'true');
    // h2's requests take longer each (10.4 against 4.5 ms): the table says which metric gated.
    const table = screen.getByRole('table', { name: 'Request latency per arm' });
    const card = table.closest('section') as HTMLElement;
    expect(within(card).getByTestId('gate-note-requests')).toHaveTextContent(
      "Each request's own time. The verdict above judged series time, periods 3–30; per-request time, beside it, " +
        'says regression.',
    );
    // The series charts show what the gate judged: no note there.
    await screen.findByTestId('chart-avg');
    expect(screen.queryByTestId('gate-note-series')).not.toBeInTheDocument();
  });

  it('says above the series charts of an analysis gated per request that the verdict is not theirs', async () => {
    serve(storedV1ResultsFixture);
    expect(await screen.findByTestId('verdict-banner')).toHaveAttribute('data-metric', 'total_ms');
    expect(await screen.findByTestId('gate-note-series')).toHaveTextContent(
      "The verdict above judged per-request time (this comparison's gate), not these series times.",
    );
    expect(screen.queryByTestId('gate-note-requests')).not.toBeInTheDocument();
  });
});
