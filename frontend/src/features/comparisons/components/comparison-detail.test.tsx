import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/testing/test-utils';
import { mockBackend } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';
import { comparisonDetailFixture } from '@/testing/fixtures';
import { ComparisonDetailView } from './comparison-detail';

const path = `/comparisons/${comparisonDetailFixture.id}`;

function renderPage() {
  return renderWithProviders(<ComparisonDetailView id={comparisonDetailFixture.id} renderResults={() => null} />, {
    path,
    routePath: '/comparisons/:id',
  });
}

describe('comparison page actions', () => {
  it('re-runs the submitted spec as a new comparison and goes to it', async () => {
    const { user, router } = renderPage();
    await user.click(await screen.findByRole('button', { name: 'Re-run' }));
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/comparisons/3a4b5c6d-7e8f-4091-a2b3-c4d5e6f70812'));
    expect(mockBackend.created).toEqual([comparisonDetailFixture.submitted_spec]);
  });

  it('offers an editable copy in the builder, and every download', async () => {
    renderPage();
    expect(await screen.findByRole('link', { name: 'Edit a copy' })).toHaveAttribute(
      'href',
      `/comparisons/new?from=${comparisonDetailFixture.id}`,
    );
    const downloads = screen.getByRole('region', { name: 'Downloads' });
    const links = within(downloads).getAllByRole('link');
    expect(links.map((link) => [link.textContent, link.getAttribute('href')])).toEqual([
      ['Samples (CSV)', `/api/v1/comparisons/${comparisonDetailFixture.id}/samples.csv`],
      ['Samples (JSON)', `/api/v1/comparisons/${comparisonDetailFixture.id}/samples.json`],
      ['Report (HTML, opens offline)', `/api/v1/comparisons/${comparisonDetailFixture.id}/report.html`],
      ['Report (PDF)', `/api/v1/comparisons/${comparisonDetailFixture.id}/report.pdf`],
    ]);
  });

  it('offers no sample download once the retention removed the samples, and says why', async () => {
    renderWithProviders(
      <ComparisonDetailView id={comparisonDetailFixture.id} renderResults={() => null} samplesRemoved />,
      { path, routePath: '/comparisons/:id' },
    );
    const downloads = await screen.findByRole('region', { name: 'Downloads' });
    expect(within(downloads).getAllByRole('link').map((link) => link.textContent)).toEqual([
      'Report (HTML, opens offline)',
      'Report (PDF)',
    ]);
    expect(within(downloads).getByTestId('samples-download-note')).toHaveTextContent('removed by the sample retention');
  });

  it('opens the Share panel from the header’s Share button, below the header', async () => {
    const { user } = renderWithProviders(
      <ComparisonDetailView
        id={comparisonDetailFixture.id}
        renderResults={() => null}
        renderShare={(detail) => <section aria-label="Share">share panel of {detail.id}</section>}
      />,
      { path, routePath: '/comparisons/:id' },
    );
    const share = await screen.findByRole('button', { name: 'Share' });
    expect(share).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('region', { name: 'Share' })).not.toBeInTheDocument();
    await user.click(share);
    expect(share).toHaveAttribute('aria-expanded', 'true');
    const panel = screen.getByRole('region', { name: 'Share' });
    expect(panel).toHaveTextContent(`share panel of ${comparisonDetailFixture.id}`);
    // Right under the header, above Progress: found without scrolling past the charts.
    const progress = screen.getByRole('region', { name: 'Progress' });
    expect(panel.compareDocumentPosition(progress) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    await user.click(share);
    expect(screen.queryByRole('region', { name: 'Share' })).not.toBeInTheDocument();
  });

  it('has no Share button where the page offers no sharing', async () => {
    renderPage();
    await screen.findByRole('button', { name: 'Re-run' });
    expect(screen.queryByRole('button', { name: 'Share' })).not.toBeInTheDocument();
  });
});

describe('a cancelled comparison', () => {
  function cancelledAfter(blocksDone: number) {
    server.use(
      http.get('*/api/v1/comparisons/:id', () =>
        HttpResponse.json({
          ...comparisonDetailFixture,
          status: 'cancelled',
          progress: { ...comparisonDetailFixture.progress, blocks_done: blocksDone, percent: (100 * blocksDone) / 12 },
        }),
      ),
    );
  }

  it('says its results are partial, and after how many of its blocks', async () => {
    cancelledAfter(5);
    renderWithProviders(
      <ComparisonDetailView id={comparisonDetailFixture.id} renderResults={() => <p>the charts</p>} />,
      { path, routePath: '/comparisons/:id' },
    );
    const banner = await screen.findByRole('status', { name: 'Partial results' });
    expect(banner).toHaveTextContent('Partial results — cancelled after 5 of 12 blocks.');
    expect(banner).toHaveTextContent('cover only the blocks stored before the cancel');
    // Above the charts it qualifies.
    const charts = screen.getByText('the charts');
    expect(banner.compareDocumentPosition(charts) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('says when nothing was stored', async () => {
    cancelledAfter(0);
    renderPage();
    expect(await screen.findByRole('status', { name: 'Partial results' })).toHaveTextContent(
      'Cancelled before any block was stored: there are no results.',
    );
  });

  it('a finished comparison has no such banner', async () => {
    renderPage();
    await screen.findByRole('button', { name: 'Re-run' });
    expect(screen.queryByRole('status', { name: 'Partial results' })).not.toBeInTheDocument();
  });
});
