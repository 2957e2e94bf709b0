// End-to-end: a comparison across a host and two phones, from the dashboard. Needs a stack
// started with the demo lab (`infra/bin/stack.py up --demo-lab`; infra/bin/test-all.sh does):
// its phones are FAKES — a fake adb server and fake libimobiledevice tools behind the real
// adb client, fake fastlane lanes — whose harness is the real Kotlin core on the JVM, so the
// numbers are real measurements of the reference target from this machine, not from a phone
// (docs/device-lab.md §10).
//   E2E_BASE_URL=… E2E_USERNAME=… E2E_PASSWORD=… node --test e2e/device-farm.e2e.test.mjs
// Optional: E2E_FINISH_TIMEOUT_MS (300000). Screenshots go to e2e/artifacts/ (gitignored).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  env,
  openPage,
  openSignedIn,
  saveElementScreenshot,
  saveScreenshot,
  waitForTerminalStatus,
} from './session.mjs';

const baseUrl = env('E2E_BASE_URL').replace(/\/$/, '');
const finishTimeoutMs = Number(env('E2E_FINISH_TIMEOUT_MS', '300000'));
// What infra/bin/stack.py's demo lab plugs in (DEMO_LAB_PHONES) and names its runner.
const PIXEL = 'FAKE-PIXEL-8';
const IPHONE = 'FAKE-IPHONE-15-PRO';
const LAB_RUNNER = 'demo-lab-fake-phones';
const NO_LAB = 'no demo lab in this stack: start it with `infra/bin/stack.py up --demo-lab`';

let browser;
let page;
let pageErrors = [];

before(async () => {
  ({ browser, page, pageErrors } = await openPage());
});

after(async () => {
  await browser?.close();
});

test("the Devices page lists the demo lab's fake phones with their states", { timeout: 120_000 }, async (t) => {
  try {
    await openSignedIn(page, `${baseUrl}/devices`, page.getByRole('heading', { name: 'Devices', level: 1 }));
    const runners = page.getByRole('table', { name: 'Runners' });
    await runners.waitFor();
    const lab = page.getByTestId(`runner-${LAB_RUNNER}`);
    await lab.waitFor({ timeout: 30_000 }).catch(() => assert.fail(NO_LAB));
    assert.match(await lab.innerText(), /android/);
    assert.match(await lab.innerText(), /ios/);

    // Both phones report in, each with a state, battery and temperature from the device tools' output.
    const expected = { [PIXEL]: /Pixel 8 \(fake\)/, [IPHONE]: /iPhone 15 Pro/ };
    for (const [serial, model] of Object.entries(expected)) {
      const row = page.getByTestId(`device-${serial}`);
      await row.waitFor({ timeout: 60_000 });
      const state = await row.getByTestId('device-state').getAttribute('data-state');
      const text = await row.innerText();
      t.diagnostic(`${serial}: ${state} — ${text.replace(/\s+/g, ' ')}`);
      assert.ok(['available', 'busy'].includes(state ?? ''), `${serial} is ${state}`);
      assert.match(text, model);
      assert.match(text, /\d+ ?%/, `${serial} shows its battery`);
      assert.match(text, /°C/, `${serial} shows its temperature`);
      // The simulator's phones are not phones, and the page says so beside each one.
      assert.match(text, /simulated phone \(JVM stand-in\)/, `${serial} is marked as the JVM stand-in`);
    }
    const host = page.locator('[data-testid^="device-host-"]').first();
    await host.waitFor();
    assert.equal(await host.getByTestId('stand-in-tag').count(), 0, 'the host runner is not a stand-in');

    t.diagnostic(`screenshot ${await saveScreenshot(page, 'device-farm-devices')}`);
    assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
  } catch (error) {
    await saveScreenshot(page, 'device-farm-devices-failure');
    throw error;
  }
});

test('a comparison on host, Android and iOS, created in the builder, has per-device charts', { timeout: finishTimeoutMs + 120_000 }, async (t) => {
  try {
    await openSignedIn(page, `${baseUrl}/comparisons/new`, page.getByRole('heading', { name: 'New comparison', level: 1 }));
    await page.getByTestId('preset-mid-image-series').click();
    const name = `e2e device farm ${new Date().toISOString()}`;
    await page.getByLabel('Name (optional)', { exact: true }).fill(name);
    await page.getByLabel('Blocks', { exact: true }).fill('2');
    await page.getByLabel('Periods (requests per series)', { exact: true }).fill('3');
    await page.getByLabel('Repetitions per period', { exact: true }).fill('2');
    const platforms = page.getByRole('group', { name: 'Platforms' });
    await platforms.getByRole('checkbox', { name: 'Android' }).check();
    await platforms.getByRole('checkbox', { name: 'iOS' }).check();
    await page.getByLabel('Devices per network profile', { exact: true }).fill('3');

    // The preset's HTTPS/1.1 arm cannot run on an iPhone: the service says so, next to the platforms.
    await page.getByRole('button', { name: 'Create comparison' }).click();
    const refusal = page.locator('#devices-platforms-error');
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /ios devices cannot run arm 'https-h1' \(h1\): URLSession/);
    t.diagnostic(`screenshot ${await saveScreenshot(page, 'device-farm-builder-refused')}`);

    // The preset issues each series concurrently (parallel 4, like NSURLSession on iOS), which every
    // platform's harness does: that is not refused.
    assert.doesNotMatch(await refusal.innerText(), /concurrency/);

    // h3 against h2 instead, each series still issued concurrently: every platform measures that.
    assert.equal(await page.getByLabel('Concurrency', { exact: true }).inputValue(), 'parallel 4');
    await page.getByLabel('Protocol of arm 1', { exact: true }).selectOption('h3');
    await page.getByLabel('Label of arm 1', { exact: true }).fill('h3');
    await page.getByLabel('Baseline arm', { exact: true }).selectOption('h2');
    await page.getByRole('button', { name: 'Create comparison' }).click();
    await page.waitForURL(/\/comparisons\/[0-9a-f-]{36}$/);
    const id = page.url().split('/').pop();
    t.diagnostic(`comparison ${id}`);
    await page.getByRole('heading', { level: 1, name }).waitFor();

    const status = await waitForTerminalStatus(page, finishTimeoutMs);
    if (status !== 'finished') {
      const file = await saveScreenshot(page, `device-farm-not-finished-${id}`);
      assert.fail(`comparison ${id} is ${status} after ${finishTimeoutMs} ms (screenshot: ${file})`);
    }

    // One run on each device, each done, with its artifacts (the phones' lane logs and raw results).
    const runs = page.getByRole('table', { name: 'Runs' });
    await runs.waitFor();
    const runsText = await runs.innerText();
    for (const device of [PIXEL, IPHONE, 'host-']) assert.ok(runsText.includes(device), `a run on ${device}`);
    assert.equal(await runs.locator('tbody tr').count(), 3);
    assert.equal((runsText.match(/\bdone\b/g) ?? []).length, 3, runsText);
    assert.match(runsText, /a1-block-1-fastlane\.log/);
    // Two of its three devices were the simulator's JVM stand-ins: each run and the page say so.
    assert.equal(await runs.getByTestId('stand-in-tag').count(), 2);
    assert.match(await page.getByTestId('stand-in-notice').innerText(), /2 of 3 devices of this comparison were/);

    // The per-device small multiples: three devices, drawn with data.
    const chart = page.getByTestId('chart-devices');
    await chart.and(page.locator('[data-state="ready"]')).waitFor({ timeout: 60_000 });
    const points = Number(await chart.getAttribute('data-points'));
    t.diagnostic(`chart-devices: ${points} points`);
    assert.ok(points >= 6, `chart-devices has ${points} points for 3 devices × 2 arms`);
    await page.getByText('3 devices · network profile: none').waitFor();
    await page.getByTestId('verdict-banner').waitFor({ timeout: 30_000 });

    t.diagnostic(`screenshot ${await saveScreenshot(page, `device-farm-comparison-${id}`)}`);
    const across = page.getByRole('region', { name: 'Compare across devices' });
    t.diagnostic(`screenshot ${await saveElementScreenshot(across, 'device-farm-chart-devices')}`);
    t.diagnostic(`screenshot ${await saveElementScreenshot(runs, 'device-farm-runs')}`);
    assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
  } catch (error) {
    await saveScreenshot(page, 'device-farm-failure');
    throw error;
  }
});
