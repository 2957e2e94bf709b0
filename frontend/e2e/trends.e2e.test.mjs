// End-to-end: three quick comparisons on one branch, then the Trends page of that branch.
//   E2E_BASE_URL=… E2E_USERNAME=… E2E_PASSWORD=… node --test e2e/trends.e2e.test.mjs
// Optional: E2E_FINISH_TIMEOUT_MS (300000). Screenshots go to e2e/artifacts/ (gitignored).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createComparison, quickSpec, waitForComparison } from './quick-comparisons.mjs';
import { env, openPage, openSignedIn, saveElementScreenshot, saveScreenshot } from './session.mjs';

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

test('the Trends page follows three comparisons of one branch', { timeout: finishTimeoutMs + 180_000 }, async (t) => {
  try {
    await openSignedIn(page, `${baseUrl}/trends`, page.getByRole('heading', { name: 'Trends', level: 1 }));

    // Three comparisons on a branch of their own, one commit each, created through the API.
    const branch = `e2e-trends-${Date.now()}`;
    const commits = ['1111111aaaa', '2222222bbbb', '3333333cccc'];
    const created = [];
    for (const [i, commit] of commits.entries()) {
      const spec = quickSpec({ name: `${branch} #${i + 1}`, tags: { branch, commit, version: `0.${i + 1}.0` } });
      created.push(await createComparison(page, baseUrl, spec));
    }
    for (const comparison of created) {
      const done = await waitForComparison(page, baseUrl, comparison.id, finishTimeoutMs);
      t.diagnostic(`${comparison.name}: ${done.status}`);
      assert.equal(done.status, 'finished', `${comparison.name} is ${done.status}: ${done.error ?? ''}`);
    }

    // The branch's trend: a chart with three points and the same three in the table, oldest first.
    await page.goto(`${baseUrl}/trends?branch=${encodeURIComponent(branch)}&arm=h2`);
    const chart = page.getByTestId('trend-chart');
    await chart.and(page.locator('[data-state="ready"]')).waitFor({ timeout: 60_000 });
    assert.equal(await chart.getAttribute('data-points'), '3');
    assert.ok((await chart.locator('svg.main-svg').count()) > 0, 'the trend chart has no Plotly SVG');
    // Each point's marker is drawn (one path per point in the scatter trace).
    assert.equal(await chart.locator('.scatterlayer .trace').first().locator('.points path').count(), 3);

    const table = page.getByRole('table', { name: 'Trend points' });
    const rows = table.getByTestId('trend-row');
    assert.equal(await rows.count(), 3);
    for (const [i, commit] of commits.entries()) {
      const text = await rows.nth(i).innerText();
      assert.match(text, new RegExp(commit));
      assert.match(text, new RegExp(`0\\.${i + 1}\\.0`));
      assert.match(text, /\d ms/);
      const verdict = await rows.nth(i).getAttribute('data-verdict');
      assert.ok(['regression', 'improvement', 'equivalent', 'inconclusive'].includes(verdict ?? ''), `verdict ${verdict}`);
      t.diagnostic(`${commit}: ${text.replace(/\s+/g, ' ')}`);
    }
    assert.equal(await page.getByLabel('Branch').inputValue(), branch);
    assert.equal(await page.getByLabel('Arm').inputValue(), 'h2');

    // The CSV link gives the same three points.
    const csvHref = await page.getByTestId('trend-csv').getAttribute('href');
    const csv = await (await page.request.get(`${baseUrl}${csvHref}`)).text();
    const lines = csv.trim().split(/\r?\n/);
    assert.equal(lines.length, 4, csv);
    assert.match(lines[0], /^comparison_id,comparison_name,created_at,branch,commit,/);
    assert.ok(lines.slice(1).every((line, i) => line.includes(commits[i])), csv);

    t.diagnostic(`screenshot ${await saveScreenshot(page, 'trends')}`);
    t.diagnostic(`chart ${await saveElementScreenshot(chart, 'trends-chart')}`);

    // A point opens its comparison (Plotly's click on the third marker)…
    const marker = chart.locator('.scatterlayer .trace').first().locator('.points path').nth(2);
    const box = await marker.boundingBox();
    assert.ok(box, 'the third marker is drawn');
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForURL(new RegExp(`/comparisons/${created[2].id}$`));
    await page.getByRole('heading', { level: 1, name: `${branch} #3` }).waitFor();
    await page.goBack();
    await table.waitFor();

    // …and so does each row of the table.
    await rows.nth(1).getByRole('link', { name: `${branch} #2` }).click();
    await page.waitForURL(new RegExp(`/comparisons/${created[1].id}$`));
    await page.getByRole('heading', { level: 1, name: `${branch} #2` }).waitFor();

    // A branch without comparisons says how to get some.
    await page.goto(`${baseUrl}/trends?branch=${encodeURIComponent(`${branch}-none`)}&arm=h2`);
    const empty = page.getByTestId('trend-empty');
    await empty.waitFor();
    assert.match(await empty.innerText(), /No comparisons on branch/);
    assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
  } catch (error) {
    await saveScreenshot(page, 'trends-failure');
    throw error;
  }
});
