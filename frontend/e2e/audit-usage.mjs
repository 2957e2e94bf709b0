// End-to-end: the audit log and usage pages against the real service. An API token created
// and revoked on Settings → API tokens shows up twice in Settings → Audit log, by the demo
// owner; a small comparison run to the end on the stack's host runner shows up as device-
// minutes in the local pool on Settings → Usage.
//   E2E_BASE_URL=… E2E_USERNAME=… E2E_PASSWORD=… node --test e2e/audit-usage.mjs
// Optional: E2E_FINISH_TIMEOUT_MS (60000). Screenshots go to e2e/artifacts/ (gitignored).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createComparison, quickSpec, waitForComparison } from './quick-comparisons.mjs';
import { env, openPage, openSignedIn, saveScreenshot } from './session.mjs';

const baseUrl = env('E2E_BASE_URL').replace(/\/$/, '');
const finishTimeoutMs = Number(env('E2E_FINISH_TIMEOUT_MS', '60000'));
const stamp = Date.now().toString(36);

let browser;
let page;
let pageErrors = [];

before(async () => {
  ({ browser, page, pageErrors } = await openPage());
});

after(async () => {
  await browser?.close();
});

const settingsLink = (name) => page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name });

test('an API token created and revoked in the dashboard is in the audit log twice', { timeout: 60_000 }, async (t) => {
  try {
    await openSignedIn(page, `${baseUrl}/tokens`, page.getByRole('heading', { name: 'API tokens', level: 1 }));
    const name = `audit-e2e-${stamp}`;
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByTestId('new-api-token').waitFor();
    await page.getByTestId('new-api-token').getByRole('button', { name: 'Done' }).click();
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: `Revoke ${name}` }).click();
    await page.getByRole('table', { name: 'API tokens' }).getByRole('row', { name: new RegExp(`${name}.*revoked`, 'i') })
      .waitFor();

    await settingsLink('Audit log').click();
    const log = page.getByRole('table', { name: 'Audit log' });
    await log.waitFor();
    const rows = log.getByRole('row').filter({ hasText: name });
    await rows.nth(1).waitFor();
    const texts = await rows.allInnerTexts();
    assert.equal(texts.length, 2, texts.join('\n'));
    assert.match(texts[0], /API token revoked/, 'newest first');
    assert.match(texts[1], /API token created/);
    for (const text of texts) assert.match(text, new RegExp(env('E2E_USERNAME')));

    await page.getByLabel('Action').selectOption({ label: 'API token revoked' });
    await page.getByRole('button', { name: 'Filter' }).click();
    await rows.filter({ hasText: 'API token created' }).waitFor({ state: 'detached' });
    assert.equal(await log.getByRole('row').filter({ hasText: name }).count(), 1);
    await saveScreenshot(page, 'audit-log');
    assert.deepEqual(pageErrors, []);
  } catch (error) {
    t.diagnostic(`screenshot: ${await saveScreenshot(page, 'audit-log-failure')}`);
    throw error;
  }
});

test('a finished comparison counts its device-minutes on the usage page', { timeout: finishTimeoutMs + 30_000 }, async (t) => {
  try {
    await openSignedIn(page, `${baseUrl}/usage`, page.getByRole('heading', { name: 'Usage', level: 1 }));
    const before = await thisMonthTotal();
    const { id } = await createComparison(page, baseUrl, quickSpec({ name: `usage e2e ${stamp}`, rounds: 2 }));
    assert.equal((await waitForComparison(page, baseUrl, id, finishTimeoutMs)).status, 'finished');

    await page.reload();
    const after = await thisMonthTotal();
    assert.ok(after > before, `this month's device-minutes grew: ${before} → ${after}`);
    const months = page.getByRole('table', { name: 'Device-minutes per month' });
    const localColumn = (await months.getByRole('columnheader').allInnerTexts()).findIndex((h) => /local/i.test(h));
    assert.ok(localColumn > 0, 'a column for the local pool');
    await saveScreenshot(page, 'usage');
    assert.deepEqual(pageErrors, []);
  } catch (error) {
    t.diagnostic(`screenshot: ${await saveScreenshot(page, 'usage-failure')}`);
    throw error;
  }
});

/** This month's total device-minutes in the months table (its first row). */
async function thisMonthTotal() {
  const months = page.getByRole('table', { name: 'Device-minutes per month' });
  await months.waitFor();
  const headers = await months.getByRole('columnheader').allInnerTexts();
  const total = headers.findIndex((h) => /^total$/i.test(h.trim()));
  // The first column is the row header (th); the cells start at the second.
  const cells = await months.getByRole('row').nth(1).getByRole('cell').allInnerTexts();
  return Number(cells[total - 1].replaceAll(',', ''));
}
