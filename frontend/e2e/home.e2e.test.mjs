// End-to-end: the Home page shows recent comparisons with their verdict badge and sparkline,
// a running comparison's live progress (the page polls; no reload) and the device farm.
//   E2E_BASE_URL=… E2E_USERNAME=… E2E_PASSWORD=… node --test e2e/home.e2e.test.mjs
// Optional: E2E_FINISH_TIMEOUT_MS (300000). Screenshots go to e2e/artifacts/ (gitignored).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createComparison, quickSpec, waitForComparison } from './quick-comparisons.mjs';
import { env, openPage, openSignedIn, saveScreenshot } from './session.mjs';

const baseUrl = env('E2E_BASE_URL').replace(/\/$/, '');
env('E2E_USERNAME');
env('E2E_PASSWORD');
const finishTimeoutMs = Number(env('E2E_FINISH_TIMEOUT_MS', '300000'));
const VERDICTS = ['regression', 'improvement', 'equivalent', 'inconclusive', 'no_data'];

let browser;
let page;
let pageErrors = [];

before(async () => {
  ({ browser, page, pageErrors } = await openPage());
});

after(async () => {
  await browser?.close();
});

test('Home shows recent verdicts, a running comparison live, and the farm', { timeout: 2 * finishTimeoutMs + 120_000 }, async (t) => {
  try {
    await openSignedIn(page, `${baseUrl}/`, page.getByRole('heading', { name: 'Home', level: 1 }));
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Home' }).getAttribute('aria-current'), 'page');

    // A finished comparison first: its row has a verdict badge and a sparkline.
    const stamp = new Date().toISOString();
    const quick = await createComparison(page, baseUrl, quickSpec({ name: `e2e home quick ${stamp}`, tags: { branch: 'e2e-home' } }));
    assert.equal((await waitForComparison(page, baseUrl, quick.id, finishTimeoutMs)).status, 'finished');
    // A longer one, watched from the home page while it runs.
    const long = await createComparison(
      page,
      baseUrl,
      quickSpec({ name: `e2e home running ${stamp}`, tags: {}, blocks: 6, rounds: 12, calls: 6 }),
    );

    await page.goto(`${baseUrl}/`);
    const quickRow = page.getByTestId(`home-recent-${quick.id}`);
    await quickRow.waitFor();
    assert.equal(await quickRow.getByTestId('status-badge').getAttribute('data-status'), 'finished');
    const verdict = await quickRow.getByTestId('home-verdict').getAttribute('data-outcome');
    assert.ok(VERDICTS.includes(verdict ?? ''), `verdict badge ${verdict}`);
    const spark = quickRow.getByTestId('sparkline');
    assert.match((await spark.getAttribute('aria-label')) ?? '', /^Median request time per arm on .+: https-h1 [\d.]+ ms; h2 [\d.]+ ms$/);
    t.diagnostic(`quick: ${verdict}; ${await spark.getAttribute('aria-label')}`);

    // Running now: the long comparison with its progress bar, moving without a reload.
    const running = page.getByTestId(`home-in-flight-${long.id}`);
    await running.waitFor({ timeout: 30_000 });
    const bar = running.getByRole('progressbar', { name: `Progress of ${long.name}` });
    const seen = [];
    const deadline = Date.now() + finishTimeoutMs;
    let screenshotted = false;
    let shown = null; // the bar's aria-valuenow as last read
    while ((await running.count()) > 0) {
      shown = await bar.getAttribute('aria-valuenow').catch(() => null);
      const now = Number(shown ?? NaN);
      if (Number.isFinite(now) && seen[seen.length - 1] !== now) seen.push(now);
      if (!screenshotted && now > 0) {
        t.diagnostic(`screenshot ${await saveScreenshot(page, 'home-running')}`);
        screenshotted = true;
      }
      // The next thing to read: the bar showing another value, or the row gone.
      await page.waitForFunction(
        ({ testId, last }) => {
          const row = globalThis.document.querySelector(`[data-testid="${testId}"]`);
          const value = row?.querySelector('[role="progressbar"]')?.getAttribute('aria-valuenow') ?? null;
          return !row || value !== last;
        },
        { testId: `home-in-flight-${long.id}`, last: shown },
        { timeout: Math.max(1, deadline - Date.now()) },
      );
    }
    t.diagnostic(`progress seen while running: ${seen.join(', ')} %`);
    assert.ok(seen.length >= 1, 'the running comparison showed a progress bar');
    assert.deepEqual([...seen].sort((a, b) => a - b), seen, 'progress never goes back');

    // Once finished it leaves "Running now" and its row gets a verdict, still without a reload.
    const longRow = page.getByTestId(`home-recent-${long.id}`);
    await longRow.getByTestId('home-verdict').waitFor({ timeout: 60_000 });
    assert.equal(await longRow.getByTestId('status-badge').getAttribute('data-status'), 'finished');
    assert.ok(seen.some((v) => v < 100), 'the progress bar was seen before the end');

    // The farm: the stack's host runner at least, by platform and state.
    const farm = page.getByRole('list', { name: 'Devices by platform and state' });
    const host = farm.getByTestId('home-farm-host');
    await host.waitFor();
    assert.match(await host.innerText(), /Host: \d+ devices?/);
    assert.ok((await host.locator('[data-state]').count()) >= 1, 'the host devices have states');
    t.diagnostic(`farm: ${(await farm.innerText()).replace(/\s+/g, ' ')}`);

    t.diagnostic(`screenshot ${await saveScreenshot(page, 'home')}`);
    assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
  } catch (error) {
    await saveScreenshot(page, 'home-failure');
    throw error;
  }
});
