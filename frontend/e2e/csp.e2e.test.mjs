// End-to-end: every page of the dashboard, a shared report, the API docs and the admin's sign-in
// work under the Content-Security-Policy the backend sends (docs/security.md, "Production
// settings"): each page is served with the policy, and Chromium reports no violation of it —
// no refused script, style, image, font, connection or frame — while charts are drawn.
//   E2E_BASE_URL=… E2E_USERNAME=… E2E_PASSWORD=… node --test e2e/csp.e2e.test.mjs
// Optional: E2E_FINISH_TIMEOUT_MS (300000). Screenshots go to e2e/artifacts/ (gitignored).
/* global window, document -- the init script runs inside each page */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createComparison, quickSpec, waitForComparison } from './quick-comparisons.mjs';
import { env, openPage, openSignedIn, saveScreenshot } from './session.mjs';

const baseUrl = env('E2E_BASE_URL').replace(/\/$/, '');
env('E2E_USERNAME');
env('E2E_PASSWORD');
const finishTimeoutMs = Number(env('E2E_FINISH_TIMEOUT_MS', '300000'));

/** How Chromium's console message names a refused inline script: by the hash that would allow it. */
const hashOf = (script) => `sha256-${createHash('sha256').update(script).digest('base64')}`;
// A violation made on purpose to mark a point in a page's life: Chromium reports a document's
// violations in the order they happened (their events are queued on one task queue, their console
// messages sent in order), so once this one's event has fired and its console message arrived,
// every earlier violation has been reported too. It is left out of what the test counts.
const MARKER_SCRIPT = '/* csp: everything before this is reported */';
const MARKER_HASH = hashOf(MARKER_SCRIPT);
const PROBE_SCRIPT = 'window.__inlineRan = true;';

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
    const text = message.text();
    if (/Content Security Policy/i.test(text) && !text.includes(MARKER_HASH)) consoleViolations.push(text);
  });
});

after(async () => {
  await browser?.close();
});

/** Every violation the page has had so far, once all of them are reported (MARKER_SCRIPT). */
async function violationsSoFar() {
  const logged = page.waitForEvent('console', { predicate: (message) => message.text().includes(MARKER_HASH) });
  await page.evaluate((text) => new Promise((resolve) => {
    const marker = document.createElement('script');
    marker.textContent = text;
    marker.addEventListener('securitypolicyviolation', (event) => {
      event.stopPropagation(); // not one of the page's own: kept from the init script's list
      resolve();
    }, { once: true });
    document.body.append(marker);
  }), MARKER_SCRIPT);
  await logged;
  return page.evaluate(() => window.__cspViolations);
}

/** Open `url`, check it was served under the policy, wait until it is drawn, and return what it violated. */
async function visit(url, ready) {
  const response = await page.goto(url);
  const policy = response?.headers()['content-security-policy'] ?? '';
  assert.match(policy, /script-src 'self'/, `${url} is served without the policy`);
  assert.match(policy, /frame-ancestors 'none'/, url);
  await ready();
  // Charts are drawn one at a time after the page settles, each injecting its styles: every one
  // drawn (or failed), so whatever they would violate has been.
  await page.waitForFunction(() => document.querySelectorAll('.plot[data-state="loading"]').length === 0, null, { timeout: 60_000 });
  return violationsSoFar();
}

test('every page works under the Content-Security-Policy', { timeout: finishTimeoutMs + 300_000 }, async (t) => {
  try {
    const seen = {};
    const heading = (name) => () => page.getByRole('heading', { name, level: 1 }).first().waitFor();

    // Before signing in: the pages anyone may open.
    seen['/login'] = await visit(`${baseUrl}/login`, () => page.getByRole('heading', { name: 'Sign in' }).waitFor());
    // The probe sees a violation when there is one: an inline script is refused and reported, as
    // the event (read once it has fired) and in the console.
    const probeLogged = page.waitForEvent('console', { predicate: (message) => message.text().includes(hashOf(PROBE_SCRIPT)) });
    const probe = await page.evaluate((text) => new Promise((resolve) => {
      // Listeners run in the order they were added: the init script's has recorded it by now.
      document.addEventListener('securitypolicyviolation', () => {
        resolve({ ran: window.__inlineRan === true, reported: window.__cspViolations.splice(0) });
      }, { once: true });
      const script = document.createElement('script');
      script.textContent = text;
      document.body.append(script);
    }), PROBE_SCRIPT);
    assert.equal(probe.ran, false, 'an inline script ran');
    assert.match(probe.reported.join('\n'), /^script-src-elem refused inline/);
    await probeLogged;
    assert.equal(consoleViolations.length, 1, consoleViolations.join('\n'));
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
