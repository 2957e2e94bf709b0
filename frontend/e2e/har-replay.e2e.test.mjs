// End-to-end: a HAR recording replayed from the dashboard (/comparisons/new/har) against the
// stack's host runner and reference target, then read per request on the comparison page.
//   E2E_BASE_URL=… E2E_USERNAME=… E2E_PASSWORD=… npm run e2e
// The recording is device-runner/runner/tests/data/reference-50.har: 50 requests a browser made to
// "app.example.test" for the reference target's paths, with a cookie and a bearer token.
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { env, openPage, openSignedIn, saveElementScreenshot, saveScreenshot, waitForTerminalStatus } from './session.mjs';

const baseUrl = env('E2E_BASE_URL').replace(/\/$/, '');
const finishTimeoutMs = Number(env('E2E_FINISH_TIMEOUT_MS', '300000'));
const HAR = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../device-runner/runner/tests/data/reference-50.har');

let browser;
let page;
let pageErrors = [];

before(async () => {
  ({ browser, page, pageErrors } = await openPage());
});

after(async () => {
  await browser?.close();
});

test('a user replays a HAR recording over h2 and h3 and reads each request', { timeout: finishTimeoutMs + 120_000 }, async (t) => {
  try {
    await openSignedIn(page, `${baseUrl}/comparisons/new/har`, page.getByRole('heading', { level: 1, name: 'Replay a recording' }));
    await page.getByLabel('HAR file', { exact: true }).setInputFiles(HAR);
    await page.getByLabel('Repetitions (1–500)', { exact: true }).fill('8');
    await page.getByRole('button', { name: 'Preview' }).click();

    const preview = page.getByRole('table', { name: 'Requests to replay' });
    await preview.waitFor();
    assert.equal(await preview.locator('tbody tr').count(), 50, '50 requests previewed');
    const dropped = await page.getByText(/headers dropped \(credentials\)/).textContent();
    t.diagnostic(dropped ?? '');
    await saveScreenshot(page, 'har-replay-preview');

    // The recording's server is not reachable from here: empty endpoints run on the reference target.
    const name = `e2e HAR replay ${new Date().toISOString()}`;
    await page.getByLabel('Name', { exact: true }).fill(name);
    for (const index of [0, 1]) await page.locator(`#arm-${index}-endpoint`).fill('');
    await page.getByRole('button', { name: 'Start comparison' }).click();
    await page.waitForURL(/\/comparisons\/[0-9a-f-]{36}$/);
    const id = page.url().split('/').pop();
    t.diagnostic(`comparison ${id}`);
    await page.getByRole('heading', { level: 1, name }).waitFor();

    const status = await waitForTerminalStatus(page, finishTimeoutMs);
    if (status !== 'finished') {
      const file = await saveScreenshot(page, `har-replay-not-finished-${id}`);
      assert.fail(`comparison ${id} is ${status} after ${finishTimeoutMs} ms (screenshot: ${file})`);
    }

    const chart = page.getByTestId('chart-per-request');
    await chart.waitFor();
    const perRequest = page.getByRole('table', { name: 'Median time of each listed request per arm' });
    await perRequest.waitFor();
    assert.equal(await perRequest.locator('tbody tr').count(), 50, 'one row per listed request');
    const firstRow = await perRequest.locator('tbody tr').first().textContent();
    t.diagnostic(`first row: ${firstRow}`);
    assert.match(firstRow ?? '', /00 GET \/files\/mid-01.*ms.*ms/, 'the first request has a median on both arms');
    await saveElementScreenshot(page.getByRole('region', { name: 'Median time of each listed request' }), 'har-replay-per-request-chart');
    await saveScreenshot(page, `har-replay-comparison-${id}`);
    assert.deepEqual(pageErrors, [], 'no uncaught page errors');
  } catch (error) {
    await saveScreenshot(page, 'har-replay-failure');
    throw error;
  }
});
