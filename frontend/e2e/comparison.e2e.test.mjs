// End-to-end: the real service (Django serving frontend/dist, workers, a host runner).
//   E2E_BASE_URL=http://127.0.0.1:8000 E2E_USERNAME=… E2E_PASSWORD=… npm run e2e
// Optional: E2E_PERIODS (default "3,6"), E2E_REPETITIONS (2), E2E_BLOCKS (2),
// E2E_FINISH_TIMEOUT_MS (300000). Screenshots go to e2e/artifacts/ (gitignored).
/* global window -- page.evaluate callbacks run in the page */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { env, openPage, openSignedIn, saveScreenshot as screenshotOf, signIn as signInOn, waitForTerminalStatus } from './session.mjs';

const baseUrl = env('E2E_BASE_URL').replace(/\/$/, '');
env('E2E_USERNAME');
env('E2E_PASSWORD');
const periods = env('E2E_PERIODS', '3,6');
const repetitions = env('E2E_REPETITIONS', '2');
const blocks = env('E2E_BLOCKS', '2');
const finishTimeoutMs = Number(env('E2E_FINISH_TIMEOUT_MS', '300000'));
// chart-phases needs the probe's real phase timestamps: it proves they reached the page.
const CHARTS = ['chart-avg', 'chart-median', 'chart-throughput', 'chart-gain', 'chart-phases'];

let browser;
let page;
let pageErrors = [];

before(async () => {
  ({ browser, page, pageErrors } = await openPage());
});

after(async () => {
  await browser?.close();
});

const saveScreenshot = (name) => screenshotOf(page, name);
const signIn = (landing) => signInOn(page, landing);

test('a user creates a MID image-series comparison and sees its charts', { timeout: finishTimeoutMs + 120_000 }, async (t) => {
  try {
    // 1. Anonymous visitors land on the login page.
    await page.goto(`${baseUrl}/comparisons`);
    await signIn(page.getByRole('heading', { name: 'Comparisons', level: 1 }));

    // 2. New comparison from the mid-image-series preset, made small enough for CI.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'New comparison' }).click();
    await page.getByTestId('preset-mid-image-series').click();
    assert.ok(await page.getByRole('radio', { name: 'MID image series (seeds/000)', exact: true }).isChecked(), 'preset selected');
    const name = `e2e MID series ${new Date().toISOString()}`;
    await page.getByLabel('Name (optional)', { exact: true }).fill(name);
    await page.getByLabel('Blocks', { exact: true }).fill(blocks);
    await page.getByLabel('Periods (requests per series)', { exact: true }).fill(periods);
    await page.getByLabel('Repetitions per period', { exact: true }).fill(repetitions);
    await page.getByRole('button', { name: 'Create comparison' }).click();

    await page.waitForURL(/\/comparisons\/[0-9a-f-]{36}$/);
    const id = page.url().split('/').pop();
    t.diagnostic(`comparison ${id}`);
    await page.getByRole('heading', { level: 1, name }).waitFor();

    // 3. The page polls by itself; wait for a terminal status.
    const status = await waitForTerminalStatus(page, finishTimeoutMs);
    if (status !== 'finished') {
      const file = await saveScreenshot(`not-finished-${id}`);
      assert.fail(`comparison ${id} is ${status} after ${finishTimeoutMs} ms (screenshot: ${file})`);
    }

    // 4. Each chart is drawn by Plotly and carries real data points.
    for (const testId of CHARTS) {
      const chart = page.getByTestId(testId);
      await chart.and(page.locator('[data-state="ready"]')).waitFor({ timeout: 60_000 });
      const points = Number(await chart.getAttribute('data-points'));
      t.diagnostic(`${testId}: ${points} points`);
      assert.ok(points > 0, `${testId} has no data points`);
      assert.ok((await chart.locator('svg.main-svg').count()) > 0, `${testId} has no Plotly SVG`);
    }
    await page.getByTestId('chart-series').and(page.locator('[data-state="ready"]')).waitFor();
    // A one-row legend fits the room the charts keep for it (plot.tsx, chartLayout): Plotly kept
    // each such chart's margins, so it laid the chart out once, not twice.
    const pushed = await page.evaluate(() =>
      [...globalThis.document.querySelectorAll('.plot-canvas')]
        .map((canvas) => ({ id: canvas.parentElement?.dataset.testid, layout: canvas._fullLayout }))
        .filter(({ layout }) => layout.showlegend && layout.legend._effHeight < 40)
        .filter(({ layout }) => ['t', 'r', 'b', 'l'].some((side) => layout._size[side] !== layout.margin[side]))
        .map(({ id }) => id),
    );
    assert.deepEqual(pushed, [], 'charts whose one-row legend made Plotly widen their margins');
    // The statistics reached the page too: a verdict for h2 against the baseline arm.
    const banner = page.getByTestId('verdict-banner');
    await banner.waitFor({ timeout: 30_000 });
    assert.match(await banner.innerText(), /h2 (\(series time\) )?vs https-h1/);

    const file = await saveScreenshot(`comparison-${id}`);
    t.diagnostic(`screenshot ${file}`);

    // 5. A first visit (a fresh load of the page): the HTML's first script sends the page's API
    //    requests and the app takes their answers, so each goes out once, and the page is whole.
    const asked = [];
    const record = (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/api/')) asked.push(url.pathname + url.search);
    };
    page.on('request', record);
    await page.reload();
    await page.getByTestId('chart-avg').and(page.locator('[data-state="ready"]')).waitFor({ timeout: 60_000 });
    await page.getByTestId('verdict-banner').waitFor();
    page.off('request', record);
    for (const path of ['/api/v1/auth/me', `/api/v1/comparisons/${id}`, `/api/v1/comparisons/${id}/results`, `/api/v1/comparisons/${id}/verdict`]) {
      assert.equal(asked.filter((candidate) => candidate === path).length, 1, `${path} asked once (all: ${asked.join(', ')})`);
    }
    // The first script left its answers for the app (src/lib/early-responses.ts), which took every one.
    const untaken = await page.evaluate(() => Object.keys(window.__latencylabEarlyResponses ?? { 'no first script ran': 1 }));
    assert.deepEqual(untaken, [], 'every early answer was taken by the app');
    assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
  } catch (error) {
    await saveScreenshot('failure');
    throw error;
  }
});

test('the Devices page shows the host runner and its device', { timeout: 120_000 }, async (t) => {
  try {
    // Signed in already when the comparison test ran first; not when this one runs alone.
    await openSignedIn(page, `${baseUrl}/devices`, page.getByRole('heading', { name: 'Devices', level: 1 }));

    // The stack's host runner reported its device: it is listed with a state and a heartbeat.
    // (A stack started with --demo-lab lists its fake phones too: device-farm.e2e.test.mjs.)
    const device = page.locator('[data-testid^="device-host-"]').first();
    await device.waitFor();
    const state = await device.getByTestId('device-state').getAttribute('data-state');
    t.diagnostic(`device ${await device.getAttribute('data-testid')}: ${state}`);
    assert.ok(['available', 'busy'].includes(state ?? ''), `the host device is ${state}`);
    assert.match(await device.innerText(), /Host/);

    const runners = page.getByRole('table', { name: 'Runners' });
    await runners.waitFor();
    assert.match(await runners.innerText(), /host/);
    assert.ok((await page.getByTestId(/^pool-/).count()) > 0, 'the pools are listed');
    // The demo user owns its organization: the enrollment form is there.
    await page.getByRole('button', { name: 'Create enrollment token' }).waitFor();

    const file = await saveScreenshot('devices');
    t.diagnostic(`screenshot ${file}`);
    assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
  } catch (error) {
    await saveScreenshot('devices-failure');
    throw error;
  }
});
