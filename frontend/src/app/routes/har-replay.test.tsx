import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { makeRoutes } from '@/app/router';
import type { HarPreview } from '@/lib/api-types';
import { server } from '@/testing/mocks/server';
import { renderRoutes } from '@/testing/test-utils';
import { parseHar, replaySpec } from '@/features/comparisons/components/har-replay-form';

const api = (path: string) => `*/api/v1${path}`;

const PREVIEW: HarPreview = {
  workload: {
    kind: 'requests',
    repetitions: 5,
    warmup: 1,
    think_ms: 0,
    requests: [
      { name: '00 GET /api/feed', method: 'GET', path: '/api/feed', headers: { accept: '*/*' }, expect_status: 200 },
      { name: '01 GET https://cdn.example.com/a.png', method: 'GET', url: 'https://cdn.example.com/a.png' },
    ],
  },
  origin: 'https://app.example.com',
  dropped: [{ entry: 0, header: 'cookie', reason: 'credential (map it to a secret to send it)' }],
  concurrency_groups: [[0, 1]],
};

function harFile(content: string) {
  return new File([content], 'checkout.har', { type: 'application/json' });
}

describe('HAR replay page', () => {
  it('previews a recording, then starts a comparison of two arms against the recorded server', async () => {
    const sent: { preview?: URL; previewBody?: unknown; spec?: unknown } = {};
    server.use(
      http.post(api('/har-import'), async ({ request }) => {
        sent.preview = new URL(request.url);
        sent.previewBody = await request.json();
        return HttpResponse.json(PREVIEW);
      }),
      http.post(api('/comparisons'), async ({ request }) => {
        sent.spec = await request.json();
        return HttpResponse.json({ id: 'c-har', name: 'x' }, { status: 201 });
      }),
    );
    const { user, router } = renderRoutes(makeRoutes, '/comparisons/new');
    await user.click(await screen.findByRole('link', { name: 'replay a HAR recording' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Replay a recording' })).toBeInTheDocument();

    await user.upload(screen.getByLabelText('HAR file'), harFile('{"log": {"entries": []}}'));
    await user.clear(screen.getByLabelText('Repetitions (1–500)'));
    await user.type(screen.getByLabelText('Repetitions (1–500)'), '5');
    await user.click(screen.getByRole('button', { name: 'Preview' }));

    const table = await screen.findByRole('table', { name: 'Requests to replay' });
    expect(within(table).getAllByRole('row')).toHaveLength(3);
    expect(within(table).getByText('https://cdn.example.com/a.png')).toBeInTheDocument();
    expect(screen.getByText('1 headers dropped (credentials)')).toBeInTheDocument();
    expect(sent.preview?.searchParams.get('repetitions')).toBe('5');
    expect(sent.previewBody).toEqual({ log: { entries: [] } });

    expect(screen.getByLabelText('Endpoint', { selector: '#arm-0-endpoint' })).toHaveValue('https://app.example.com');
    await user.clear(screen.getByLabelText('Endpoint', { selector: '#arm-1-endpoint' }));
    await user.type(screen.getByLabelText('Endpoint', { selector: '#arm-1-endpoint' }), 'https://build-b.example.com');
    await user.click(screen.getByRole('button', { name: 'Start comparison' }));

    await vi.waitFor(() => expect(sent.spec).toBeDefined());
    expect(sent.spec).toEqual({
      name: 'HAR replay: checkout',
      workload: PREVIEW.workload,
      arms: [
        { label: 'h2', protocol: 'h2', endpoint: 'https://app.example.com' },
        { label: 'h3', protocol: 'h3', endpoint: 'https://build-b.example.com' },
      ],
      baseline_arm: 'h2',
    });
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/comparisons/c-har'));
  });

  it("names the entry and field the server refused, and says when a file is not JSON", async () => {
    server.use(
      http.post(api('/har-import'), () =>
        HttpResponse.json({ entries: { '8': { 'request.url': ['An http(s) URL is required: missing'] } } }, { status: 400 }),
      ),
    );
    const { user } = renderRoutes(makeRoutes, '/comparisons/new/har');
    await user.upload(await screen.findByLabelText('HAR file'), harFile('not json'));
    await user.click(screen.getByRole('button', { name: 'Preview' }));
    expect(await screen.findByText(/The file is not JSON/)).toBeInTheDocument();

    await user.upload(screen.getByLabelText('HAR file'), harFile('{"log": {}}'));
    await user.click(screen.getByRole('button', { name: 'Preview' }));
    const alert = await screen.findByText('The recording could not be imported:');
    expect(alert.parentElement).toHaveTextContent('entries.8.request.url: An http(s) URL is required: missing');
  });
});

describe('replay spec', () => {
  it('keeps the workload as previewed and makes the first arm the baseline', () => {
    const spec = replaySpec(' ', PREVIEW.workload as never, [
      { label: ' a ', protocol: 'h1', endpoint: ' https://a.example.com ' },
      { label: 'b', protocol: 'h2', endpoint: 'https://b.example.com' },
    ]);
    expect(spec).toEqual({
      name: 'HAR replay',
      workload: PREVIEW.workload,
      arms: [
        { label: 'a', protocol: 'h1', endpoint: 'https://a.example.com' },
        { label: 'b', protocol: 'h2', endpoint: 'https://b.example.com' },
      ],
      baseline_arm: 'a',
    });
    expect(parseHar('[1]')).toEqual({ problem: 'A HAR file is a JSON object with log.entries.' });
    const reference = replaySpec('x', PREVIEW.workload as never, [{ label: 'h2', protocol: 'h2', endpoint: '  ' }]);
    expect(reference.arms).toEqual([{ label: 'h2', protocol: 'h2' }]);
  });
});
