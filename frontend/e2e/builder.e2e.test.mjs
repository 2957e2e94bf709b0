// End-to-end: the comparison builder and the comparison page against the real service.
//   E2E_BASE_URL=http://127.0.0.1:8000 E2E_USERNAME=… E2E_PASSWORD=… node --test e2e/builder.e2e.test.mjs
// Optional: E2E_FINISH_TIMEOUT_MS (300000). Screenshots go to e2e/artifacts/ (gitignored).
//
// Builds a comparison in the UI from a preset, sees the API's message at a field for an
// out-of-range value, fixes it, sees the estimate and the YAML, submits, waits for it,
// filters the charts, opens an editable copy (prefilled), re-runs it and judges the re-run
// against the first comparison with the baseline picker.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  env,
  openPage,
  openSignedIn,
  saveElementScreenshot,
  saveScreenshot as screenshotOf,
  waitForTerminalStatus,
} from './session.mjs';

const baseUrl = env('E2E_BASE_URL').replace(/\/$/, '');
env('E2E_USERNAME');
env('E2E_PASSWORD');
const finishTimeoutMs = Number(env('E2E_FINISH_TIMEOUT_MS', '300000'));

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

async function waitFinished(t, id) {
  const status = await waitForTerminalStatus(page, finishTimeoutMs);
  if (status !== 'finished') {
    const file = await saveScreenshot(`builder-not-finished-${id}`);
    assert.fail(`comparison ${id} is ${status} after ${finishTimeoutMs} ms (screenshot: ${file})`);
  }
  t.diagnostic(`comparison ${id} finished`);
}

const points = async (testId) => {
  const chart = page.getByTestId(testId);
  await chart.and(page.locator('[data-state="ready"]')).waitFor({ timeout: 60_000 });
  return Number(await chart.getAttribute('data-points'));
};

test('build, validate, run, filter, copy, re-run and compare against a baseline', { timeout: 2 * finishTimeoutMs + 240_000 }, async (t) => {
  try {
    // 1. The builder, from the MID image-series preset, made small.
    await openSignedIn(page, `${baseUrl}/comparisons/new`, page.getByRole('heading', { name: 'New comparison', level: 1 }));
    await page.getByTestId('preset-mid-image-series').click();
    const name = `e2e builder ${new Date().toISOString()}`;
    await page.getByLabel('Name (optional)', { exact: true }).fill(name);
    await page.getByLabel('Periods (requests per series)', { exact: true }).fill('3, 6');
    await page.getByLabel('Repetitions per period', { exact: true }).fill('2');
    await page.getByLabel('Tags (optional)', { exact: true }).fill('branch=e2e-builder');

    // 2. An out-of-range value: the API's dry run answers, and its message sits at the field.
    const blocks = page.getByLabel('Blocks', { exact: true });
    await blocks.fill('99');
    await page.locator('#spec-blocks[aria-invalid="true"]').waitFor();
    const message = await page.locator('#blocks-error').innerText();
    t.diagnostic(`at the Blocks field: ${message}`);
    assert.match(message, /less than or equal to 50/);
    assert.match(await page.getByTestId('estimate').innerText(), /1 problem to fix/);
    await saveScreenshot('builder-field-error');

    // 3. Fixed: the estimate and the YAML follow.
    await blocks.fill('2');
    const estimate = page.getByTestId('estimate');
    await estimate.getByText(/requests/).waitFor();
    const estimateText = await estimate.innerText();
    t.diagnostic(`estimate: ${estimateText}`);
    // 2 arms × (3 + 6) × 2 repetitions = 36 measured requests per run, one run (host, none).
    assert.match(estimateText, /1 run · 2 blocks · 36 requests/);
    assert.equal(await page.locator('#spec-blocks').getAttribute('aria-invalid'), null);
    const yaml = await page.getByTestId('spec-yaml').innerText();
    assert.match(yaml, /^blocks: 2$/m);
    assert.match(yaml, /^preset: mid-image-series$/m);
    assert.match(yaml, /branch: e2e-builder/);
    await saveScreenshot('builder-valid');

    // 4. Submit and wait for it.
    await page.getByRole('button', { name: 'Create comparison' }).click();
    await page.waitForURL(/\/comparisons\/[0-9a-f-]{36}$/);
    const firstId = page.url().split('/').pop();
    t.diagnostic(`comparison ${firstId}`);
    await page.getByRole('heading', { level: 1, name }).waitFor();
    await waitFinished(t, firstId);

    // 5. Filters: one arm less, then fewer periods; every chart follows.
    const all = await points('chart-avg');
    const filters = page.getByRole('group', { name: 'Filter the charts' });
    const arms = await filters.getByRole('checkbox').count();
    t.diagnostic(`chart-avg: ${all} points, ${arms} arms`);
    assert.equal(all, arms * 2);
    await filters.getByRole('checkbox', { name: 'h2', exact: true }).uncheck();
    await page.waitForFunction((n) => globalThis.document.querySelector('[data-testid="chart-avg"]')?.getAttribute('data-points') === String(n), (arms - 1) * 2);
    await filters.getByLabel('Periods from').selectOption('6');
    await page.waitForFunction((n) => globalThis.document.querySelector('[data-testid="chart-avg"]')?.getAttribute('data-points') === String(n), arms - 1);
    await saveScreenshot('comparison-filtered');
    await filters.getByRole('button', { name: 'Show everything' }).click();
    assert.equal(await points('chart-avg'), all);

    // Greyscale: the arms stay apart by marker, dash and hatching.
    await page.addStyleTag({ content: 'html { filter: grayscale(1); }' });
    await saveElementScreenshot(page.getByTestId('chart-avg').locator('xpath=ancestor::section[1]'), 'chart-avg-greyscale');
    await saveElementScreenshot(page.getByTestId('chart-throughput').locator('xpath=ancestor::section[1]'), 'chart-throughput-greyscale');
    await page.addStyleTag({ content: 'html { filter: none; }' });

    // 6. Edit a copy: the builder, prefilled with this comparison's spec.
    await page.getByRole('link', { name: 'Edit a copy' }).click();
    await page.waitForURL(/\/comparisons\/new\?from=/);
    await page.getByText(/Editing a copy of/).waitFor();
    assert.equal(await page.getByLabel('Name (optional)', { exact: true }).inputValue(), name);
    assert.equal(await page.getByLabel('Blocks', { exact: true }).inputValue(), '2');
    assert.equal(await page.getByLabel('Periods (requests per series)', { exact: true }).inputValue(), '3, 6');
    assert.equal(await page.getByLabel('Tags (optional)', { exact: true }).inputValue(), 'branch=e2e-builder');
    assert.ok(await page.getByRole('radio', { name: /MID image series/ }).first().isChecked());
    await page.getByTestId('estimate').getByText(/36 requests/).waitFor();
    await saveScreenshot('builder-copy');

    // 7. Re-run from the first comparison's page: the same spec, a new comparison.
    await page.goto(`${baseUrl}/comparisons/${firstId}`);
    await page.getByRole('button', { name: 'Re-run' }).click();
    await page.waitForURL((url) => /\/comparisons\/[0-9a-f-]{36}$/.test(url.pathname) && !url.pathname.endsWith(firstId));
    const secondId = page.url().split('/').pop();
    t.diagnostic(`re-run ${secondId}`);
    await page.getByRole('heading', { level: 1, name }).waitFor();
    await waitFinished(t, secondId);

    // 8. Judge the re-run against the first comparison.
    const picker = page.getByRole('form', { name: 'Baseline' });
    await picker.getByLabel('Baseline', { exact: true }).selectOption(firstId);
    await picker.getByRole('button', { name: 'Compare' }).click();
    const answer = page.getByTestId('baseline-verdict');
    await answer.waitFor({ timeout: 60_000 });
    const outcome = await answer.getByTestId('verdict-banner').getAttribute('data-outcome');
    t.diagnostic(`against ${firstId}: ${outcome}`);
    assert.ok(['regression', 'improvement', 'equivalent', 'inconclusive'].includes(outcome ?? ''), `outcome ${outcome}`);
    assert.match(await answer.innerText(), /vs https-h1|vs h2|vs h3/);
    await saveElementScreenshot(answer, 'baseline-verdict');
    await saveScreenshot('comparison-rerun');
    assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
  } catch (error) {
    await saveScreenshot('builder-failure');
    throw error;
  }
});
