// What the browser end-to-end tests share: their settings, a Chromium page that records
// uncaught errors, signing in, screenshots in e2e/artifacts/ (gitignored), and the tests' own
// HTTP requests to the service.
/* global document -- the function given to waitForFunction runs inside the page */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './chromium.mjs';

export const artifacts = path.join(path.dirname(fileURLToPath(import.meta.url)), 'artifacts');

export const env = (name, fallback) => {
  const value = process.env[name] ?? fallback;
  if (value === undefined || value === '') throw new Error(`${name} is not set; see the header of the e2e test file`);
  return value;
};

/**
 * `fetch` from the test process, on a connection used for this request only. Node's fetch keeps
 * idle connections and sends the next request on one; gunicorn closes an idle one after its
 * keep-alive timeout, and a request that went out as it closed failed with "fetch failed: other side closed".
 * `Connection: close` makes undici close the socket after the response instead of pooling it,
 * so with every test request made here there is never an idle one to reuse.
 */
export function fetchOnce(url, init = {}) {
  const headers = new Headers(init.headers);
  headers.set('Connection', 'close');
  return fetch(url, { ...init, headers });
}

/** A fresh browser with one page; `pageErrors` collects the page's uncaught errors. */
export async function openPage() {
  mkdirSync(artifacts, { recursive: true });
  const browser = await launchChromium();
  const page = await browser.context.newPage();
  page.setDefaultTimeout(30_000);
  const pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  return { browser, page, pageErrors };
}

/** How long a full-page screenshot waits for the page's charts (drawn one at a time) to finish. */
const CHARTS_SETTLE_MS = 30_000;

export async function saveScreenshot(page, name) {
  const file = path.join(artifacts, `${name}.png`);
  // Charts are drawn one at a time, visible ones first: wait for the rest so the picture shows them all.
  await page
    .waitForFunction(() => document.querySelectorAll('.plot[data-state="loading"]').length === 0, null,
      { timeout: CHARTS_SETTLE_MS })
    .catch(() => {});
  // Chart cards skip painting while out of view (content-visibility: auto) and a full-page
  // screenshot does not scroll: the picture would show blank cards where the charts are.
  await page.addStyleTag({ content: '* { content-visibility: visible !important; }' }).catch(() => {});
  await page.screenshot({ path: file, fullPage: true }).catch(() => {});
  return file;
}

/** One part of the page (a chart, a table), for a look at it at full size. */
export async function saveElementScreenshot(locator, name) {
  const file = path.join(artifacts, `${name}.png`);
  await locator.screenshot({ path: file }).catch(() => {});
  return file;
}

export async function signIn(page, landing) {
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByLabel('Username', { exact: true }).fill(env('E2E_USERNAME'));
  await page.getByLabel('Password', { exact: true }).fill(env('E2E_PASSWORD'));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await landing.waitFor();
}

/** Open `url`; sign in first when the session has none (a test run alone). */
export async function openSignedIn(page, url, landing) {
  await page.goto(url);
  await Promise.race([landing.waitFor(), page.getByRole('heading', { name: 'Sign in' }).waitFor()]);
  if (!(await landing.isVisible())) await signIn(page, landing);
}

/** Waits until the comparison page's status badge is terminal (or `timeoutMs` passed) and
 * returns its status: one condition wait on the badge's attribute, no fixed pause between looks. */
export async function waitForTerminalStatus(page, timeoutMs) {
  const badge = page.getByTestId('status-badge');
  const terminal = ['finished', 'failed', 'cancelled'].map((s) => `[data-testid="status-badge"][data-status="${s}"]`);
  await page.locator(terminal.join(', ')).first().waitFor({ timeout: timeoutMs }).catch(() => {});
  return badge.getAttribute('data-status');
}
