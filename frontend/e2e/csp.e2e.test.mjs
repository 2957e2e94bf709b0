// End-to-end: every page of the dashboard, a shared report, the API docs and the admin's sign-in
// work under the Content-Security-Policy the backend sends (docs/security.md, "Production
// settings"): each page is served with the policy, and Chromium reports no violation of it —
// no refused script, style, image, font, connection or frame — while charts are drawn.
//   E2E_BASE_URL=… E2E_USERNAME=… E2E_PASSWORD=… node --test e2e/csp.e2e.test.mjs
// Optional: E2E_FINISH_TIMEOUT_MS (300000). Screenshots go to e2e/artifacts/ (gitignored).
/* global window, document -- the init script runs inside each page */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createComparison, quickSpec, waitForComparison } from './quick-comparisons.mjs';
import { env, openPage, openSignedIn, saveScreenshot } from './session.mjs';

const baseUrl = env('E2E_BASE_URL').replace(/\/$/, '');
env('E2E_USERNAME');
env('E2E_PASSWORD');
const finishTimeoutMs = Number(env('E2E_FINISH_TIMEOUT_MS', '300000'));

let browser;
let page;
let pageErrors = [];
const consoleViolations = [];

before(async () => {
  ({ browser, page, pageErrors } = await openPage());
  // Every violation the page sees, as the event the CSP specification fires (the init script
  // is injected by the browser's debugging protocol, which the policy does not govern).
  await browser.context.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push(`${e.effectiveDirective} refused ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) consoleViolations.push(message.text());
  });
});

after(async () => {
  await browser?.close();
});

/** Open `url`, check it was served under the policy, let it settle, and return what it violated. */
async function visit(url, ready) {
  const response = await page.goto(url);
  const policy = response?.headers()['content-security-policy'] ?? '';
  assert.match(policy, /script-src 'self'/, `${url} is served without the policy`);
  assert.match(policy, /frame-ancestors 'none'/, url);
  await ready();
  // Charts are drawn one at a time after the page settles: give them the time to inject their styles.
  await page.waitForFunction(() => document.querySelectorAll('.plot[data-state="loading"]').length === 0, null, { timeout: 30_000 }).catch(() => {});
  await page.waitForTimeout(500);
  return page.evaluate(() => window.__cspViolations);
}

test('every page works under the Content-Security-Policy', { timeout: finishTimeoutMs + 300_000 }, async (t) => {
  try {
    const seen = {};
    const heading = (name) => () => page.getByRole('heading', { name, level: 1 }).first().waitFor();

    // Before signing in: the pages anyone may open.
    seen['/login'] = await visit(`${baseUrl}/login`, () => page.getByRole('heading', { name: 'Sign in' }).waitFor());
    // The probe sees a violation when there is one: an inline script is refused and reported.
    const probe = await page.evaluate(async () => {
      const script = document.createElement('script');
      script.textContent = 'window.__inlineRan = true;';
      document.body.append(script);
      await new Promise((resolve) => setTimeout(resolve, 200));
      return { ran: window.__inlineRan === true, reported: window.__cspViolations.splice(0) };
    });
    assert.equal(probe.ran, false, 'an inline script ran');
    assert.match(probe.reported.join('\n'), /^script-src-elem refused inline/);
    consoleViolations.length = 0;
    seen['/forgot-password'] = await visit(`${baseUrl}/forgot-password`, () => page.locator('form').first().waitFor());
    seen['/api/docs/'] = await visit(`${baseUrl}/api/docs/`, () => page.locator('.swagger-ui .info .title').waitFor());
    seen['/admin/login/'] = await visit(`${baseUrl}/admin/login/`, () => page.locator('#login-form').waitFor());
    const adminStyled = await page.evaluate(() => window.getComputedStyle(document.querySelector('#header')).backgroundColor);
    assert.notEqual(adminStyled, 'rgba(0, 0, 0, 0)', 'the admin stylesheet was not applied');

    await openSignedIn(page, `${baseUrl}/`, page.getByRole('heading', { name: 'Home', level: 1 }));
    const comparison = await createComparison(page, baseUrl, quickSpec({ name: `e2e csp ${new Date().toISOString()}`, tags: { branch: 'e2e-csp' } }));
    assert.equal((await waitForComparison(page, baseUrl, comparison.id, finishTimeoutMs)).status, 'finished');

    seen['/'] = await visit(`${baseUrl}/`, heading('Home'));
    seen['/comparisons'] = await visit(`${baseUrl}/comparisons`, heading('Comparisons'));
    seen['/comparisons/:id'] = await visit(`${baseUrl}/comparisons/${comparison.id}`, async () => {
      await page.getByTestId('status-badge').waitFor();
      await page.locator('.js-plotly-plot').first().waitFor({ timeout: 60_000 });
    });
    await saveScreenshot(page, 'csp-comparison');
    const charts = await page.locator('.js-plotly-plot').count();
    assert.ok(charts > 0, 'the comparison page drew no chart');
    seen['/comparisons/new'] = await visit(`${baseUrl}/comparisons/new`, () => page.locator('main form, main textarea').first().waitFor());
    seen['/comparisons/new/har'] = await visit(`${baseUrl}/comparisons/new/har`, () => page.locator('main').first().waitFor());
    seen['/trends'] = await visit(`${baseUrl}/trends`, heading('Trends'));
    seen['/devices'] = await visit(`${baseUrl}/devices`, heading('Devices'));
    for (const settingsPage of ['/organization', '/members', '/network-profiles', '/tokens', '/webhooks', '/shares', '/usage', '/audit-log']) {
      seen[settingsPage] = await visit(`${baseUrl}${settingsPage}`, () => page.locator('main h1, main h2').first().waitFor());
    }

    // A shared report, opened the way its recipient does.
    const share = await page.request.post(`${baseUrl}/api/v1/comparisons/${comparison.id}/shares`, {
      data: {},
      headers: {
        'X-CSRFToken': (await page.context().cookies(baseUrl)).find((c) => c.name === 'csrftoken')?.value ?? '',
        Referer: `${baseUrl}/`,
      },
    });
    assert.equal(share.status(), 201, await share.text());
    const { url } = await share.json();
    seen['/r/:token'] = await visit(url, () => page.locator('.js-plotly-plot').first().waitFor({ timeout: 60_000 }));
    await saveScreenshot(page, 'csp-shared-report');

    const violations = Object.entries(seen).filter(([, found]) => found.length > 0);
    t.diagnostic(`${Object.keys(seen).length} pages, ${charts} charts on the comparison page`);
    assert.deepEqual(violations, [], 'pages violating the policy');
    assert.deepEqual(consoleViolations, [], 'CSP errors in the console');
    assert.deepEqual(pageErrors, []);
  } catch (error) {
    await saveScreenshot(page, 'csp-failure');
    throw error;
  }
});
