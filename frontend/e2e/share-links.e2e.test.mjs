// End-to-end: share links against the real service (Django serving the built frontend,
// workers, the host runner). A comparison is created through the API and shared from its
// page; the link is opened in fresh browsers with no session, its OpenGraph tags and card
// checked, the offline HTML opened with the network off, the PDF rendered by pdftoppm; then
// the link is revoked in the UI and another made to expire, and both are refused.
//   E2E_BASE_URL=http://127.0.0.1:8000 E2E_USERNAME=… E2E_PASSWORD=… E2E_STACK_DIR=<stack.py --dir> \
//     node --test e2e/share-links.e2e.test.mjs
// E2E_STACK_DIR: the running stack's directory; its environment (`stack.py env`) lets the test
// set a link's expiry in the past with `manage.py shell`. E2E_FINISH_TIMEOUT_MS (300000).
// Screenshots go to e2e/artifacts/ (gitignored).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { launchChromium } from './chromium.mjs';
import { artifacts, env, fetchOnce, openPage, openSignedIn, saveElementScreenshot, saveScreenshot } from './session.mjs';
import { waitForComparison } from './quick-comparisons.mjs';

const baseUrl = env('E2E_BASE_URL').replace(/\/$/, '');
env('E2E_USERNAME');
env('E2E_PASSWORD');
const stackDir = env('E2E_STACK_DIR');
const finishTimeoutMs = Number(env('E2E_FINISH_TIMEOUT_MS', '300000'));
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const python = path.join(repo, '.venv', 'bin', 'python');
const CHARTS = ['chart-avg', 'chart-median', 'chart-throughput', 'chart-gain'];

let browser;
let page;
let pageErrors = [];
const fresh = [];

before(async () => {
  ({ browser, page, pageErrors } = await openPage());
});

after(async () => {
  for (const other of fresh) await other.close();
  await browser?.close();
});

/** A browser of its own: no cookies, no session. */
async function freshBrowser() {
  const other = await launchChromium();
  fresh.push(other);
  const otherPage = await other.context.newPage();
  otherPage.setDefaultTimeout(30_000);
  const errors = [];
  otherPage.on('pageerror', (error) => errors.push(String(error)));
  return { context: other.context, page: otherPage, errors };
}

/** A call to the API from the signed-in page: its session cookie and CSRF token. */
async function apiCall(method, url, body) {
  return page.evaluate(
    async ({ method, url, body }) => {
      const csrf = globalThis.document.cookie.split('; ').find((c) => c.startsWith('csrftoken='))?.split('=')[1] ?? '';
      const response = await fetch(url, {
        method,
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', 'X-CSRFToken': csrf },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json().catch(() => null) };
    },
    { method, url, body },
  );
}

/** Runs Python in the backend with the stack's environment (stack.py env). */
function manageShell(code) {
  const state = JSON.parse(execFileSync(python, [path.join(repo, 'infra/bin/stack.py'), 'env', '--dir', stackDir], { encoding: 'utf8' }));
  return execFileSync(python, ['manage.py', 'shell', '-c', code], {
    cwd: path.join(repo, 'backend'),
    env: { ...process.env, ...state.env, DJANGO_SETTINGS_MODULE: 'config.settings.base' },
    encoding: 'utf8',
  });
}

function pngSize(bytes) {
  assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG', 'a PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

function metaContent(html, key) {
  const match = html.match(new RegExp(`<meta (?:property|name)="${key}" content="([^"]*)"`));
  return match ? match[1].replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#x27;/g, "'") : null;
}

/** Pixels of a binary PGM (pdftoppm -gray) that are not white: ink on the page. */
function inkFraction(pgm) {
  const header = pgm.toString('latin1', 0, 64).match(/^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/);
  assert.ok(header, 'a binary PGM');
  const [, width, height] = header.map(Number);
  const pixels = pgm.subarray(header[0].length);
  let ink = 0;
  for (const value of pixels) if (value < 200) ink += 1;
  return ink / (width * height);
}

async function chartsDrawn(target, t, label) {
  for (const testId of CHARTS) {
    const chart = target.getByTestId(testId);
    await chart.and(target.locator('[data-state="ready"]')).waitFor({ timeout: 60_000 });
    const points = Number(await chart.getAttribute('data-points'));
    assert.ok(points > 0, `${label}: ${testId} has no data points`);
    assert.ok((await chart.locator('svg.main-svg').count()) > 0, `${label}: ${testId} has no Plotly SVG`);
  }
  t.diagnostic(`${label}: ${CHARTS.length} charts drawn`);
}

/** The comparison page's Share panel, opened from the header's Share button if it is closed. */
async function openSharePanel() {
  const button = page.getByRole('button', { name: 'Share', exact: true });
  if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click();
  return page.getByRole('region', { name: 'Share' });
}

async function createLinkInUi(expiry) {
  const panel = await openSharePanel();
  await panel.getByLabel('Link expires').selectOption({ label: expiry });
  await panel.getByRole('button', { name: 'Create share link' }).click();
  const url = await panel.getByTestId('share-url').inputValue();
  assert.match(url, /\/r\/lls_[A-Za-z0-9_-]{43}$/);
  await panel.getByRole('button', { name: 'Done' }).click();
  return url;
}

async function assertRefused(url, t, screenshot) {
  const token = url.split('/r/')[1];
  const api = await fetchOnce(`${baseUrl}/api/v1/public/reports/${token}`);
  assert.equal(api.status, 404);
  assert.match((await api.json()).detail, /no longer valid/);
  const shell = await fetchOnce(url);
  assert.equal(shell.status, 404);
  assert.equal(metaContent(await shell.text(), 'og:title'), null);
  const visitor = await freshBrowser();
  await visitor.page.goto(url);
  await visitor.page.getByRole('heading', { name: 'This link is no longer valid' }).waitFor();
  t.diagnostic(`screenshot ${await saveScreenshot(visitor.page, screenshot)}`);
}

test('a share link shows the report without a session, offline and as PDF, until revoked or expired', { timeout: finishTimeoutMs + 300_000 }, async (t) => {
  try {
    await openSignedIn(page, `${baseUrl}/comparisons`, page.getByRole('heading', { name: 'Comparisons', level: 1 }));
    const name = `e2e shared ${new Date().toISOString()}`;
    const created = await apiCall('POST', '/api/v1/comparisons', {
      name,
      preset: 'mid-image-series',
      workload: { kind: 'series', periods: [3], repetitions: 2, concurrency: 'sequential' },
      devices: { pool: 'local', platforms: ['host'], count: 1 },
      blocks: 2,
      tags: { branch: 'e2e-share' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id;
    t.diagnostic(`comparison ${id}`);
    assert.equal((await waitForComparison(page, baseUrl, id, finishTimeoutMs)).status, 'finished');

    // 1. Share it from its page; the URL is shown once.
    await page.goto(`${baseUrl}/comparisons/${id}`);
    await page.getByRole('heading', { level: 1, name }).waitFor();
    const url = await createLinkInUi('Never');
    const token = url.split('/r/')[1];
    t.diagnostic(`share link ${token.slice(0, 12)}…`);
    const row = page.getByTestId('share-link-row').first();
    assert.match(await row.innerText(), new RegExp(`${token.slice(0, 12)}…`));

    // 2. A fresh browser with no session sees the report: verdict, effect sizes, charts, method.
    const visitor = await freshBrowser();
    const signedInCalls = [];
    visitor.page.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (pathname.startsWith('/api/') && !pathname.startsWith('/api/v1/public/')) signedInCalls.push(pathname);
    });
    await visitor.page.goto(url);
    await visitor.page.getByRole('heading', { level: 1, name }).waitFor();
    assert.equal(await visitor.page.getByRole('navigation', { name: 'Main' }).count(), 0, 'not the signed-in layout');
    assert.match(await visitor.page.getByTestId('report-verdict-line').innerText(), /h2 (\(series time\) )?vs https-h1/);
    await visitor.page.getByTestId('verdict-banner').waitFor();
    await chartsDrawn(visitor.page, t, 'public page');
    assert.match(await visitor.page.getByRole('table', { name: 'Runs' }).innerText(), /none/);
    t.diagnostic(`screenshot ${await saveScreenshot(visitor.page, 'share-report-page')}`);
    assert.deepEqual(visitor.errors, [], 'no uncaught errors on the public page');
    assert.deepEqual(signedInCalls, [], 'the public page asks only the public API');

    // 3. The served HTML carries the preview tags; the card is a 1200×630 PNG.
    const shell = await (await fetchOnce(url)).text();
    assert.equal(metaContent(shell, 'og:title'), `${name} · LatencyLab`);
    assert.match(metaContent(shell, 'og:description') ?? '', /h2 (\(series time\) )?vs https-h1/);
    assert.equal(metaContent(shell, 'twitter:card'), 'summary_large_image');
    const image = metaContent(shell, 'og:image');
    assert.ok(image?.startsWith('http') && image.endsWith(`/api/v1/public/reports/${token}/card.png`), image);
    const card = await fetchOnce(image);
    assert.equal(card.headers.get('content-type'), 'image/png');
    assert.deepEqual(pngSize(Buffer.from(await card.arrayBuffer())), { width: 1200, height: 630 });

    // 4. "Download HTML", opened in a browser with the network off: the charts still draw.
    const [download] = await Promise.all([
      visitor.page.waitForEvent('download'),
      visitor.page.getByRole('link', { name: 'Download HTML' }).click(),
    ]);
    const offlineFile = path.join(artifacts, 'share-offline.html');
    await download.saveAs(offlineFile);
    const html = readFileSync(offlineFile, 'utf8');
    assert.ok(!/<script[^>]*\ssrc=/i.test(html), 'no external script');
    const offline = await freshBrowser();
    await offline.context.setOffline(true);
    const attempted = [];
    await offline.context.route('**/*', (route) => {
      const requested = route.request().url();
      if (requested.startsWith('file:')) return route.continue();
      attempted.push(requested);
      return route.abort();
    });
    await offline.page.goto(pathToFileURL(offlineFile).href);
    await offline.page.getByRole('heading', { level: 1, name }).waitFor();
    await chartsDrawn(offline.page, t, 'offline HTML');
    assert.deepEqual(attempted.filter((u) => !u.startsWith('data:')), [], 'the offline file requested nothing');
    assert.deepEqual(offline.errors, [], 'no uncaught errors in the offline file');
    t.diagnostic(`screenshot ${await saveScreenshot(offline.page, 'share-offline-html')}`);

    // 5. The PDF: pdftoppm renders its first page, and the page is not blank.
    const pdf = Buffer.from(await (await fetchOnce(`${baseUrl}/api/v1/public/reports/${token}/report.pdf`)).arrayBuffer());
    assert.equal(pdf.subarray(0, 4).toString('latin1'), '%PDF');
    const pdfFile = path.join(artifacts, 'share-report.pdf');
    writeFileSync(pdfFile, pdf);
    const pagePrefix = path.join(artifacts, 'share-pdf-page');
    rmSync(`${pagePrefix}-1.png`, { force: true });
    execFileSync('pdftoppm', ['-png', '-r', '50', '-f', '1', '-l', '1', pdfFile, pagePrefix]);
    const pagePng = readdirMatch(artifacts, /^share-pdf-page-0*1\.png$/);
    assert.ok(pagePng && statSync(pagePng).size > 2_000, 'pdftoppm wrote the first page');
    const pgm = execFileSync('pdftoppm', ['-gray', '-r', '50', '-f', '1', '-l', '1', pdfFile]);
    const ink = inkFraction(pgm);
    t.diagnostic(`PDF page 1: ${(ink * 100).toFixed(1)} % ink, image ${pagePng}`);
    assert.ok(ink > 0.01, 'the first PDF page is not blank');

    // 6. Revoked in the UI: the page and the API refuse it.
    await page.bringToFront();
    const panel = await openSharePanel();
    await panel.getByRole('button', { name: `Revoke share link ${token.slice(0, 12)}…` }).click();
    await panel.locator(`[data-testid="share-link-row"][data-state="revoked"]`).first().waitFor();
    await assertRefused(url, t, 'share-invalid-link-revoked');

    // 7. Expired: another link, its expiry moved into the past behind the API's back.
    const expiring = await createLinkInUi('In 1 day');
    const prefix = expiring.split('/r/')[1].slice(0, 12);
    const updated = manageShell(
      'import datetime as dt\nfrom django.utils import timezone\nfrom apps.reports.models import ShareLink\n' +
        `print(ShareLink.objects.filter(prefix=${JSON.stringify(prefix)}).update(expires_at=timezone.now() - dt.timedelta(minutes=1)))`,
    );
    assert.equal(updated.trim().split('\n').pop(), '1', updated);
    await assertRefused(expiring, t, 'share-invalid-link-expired');
    await page.reload();
    const sharePanel = await openSharePanel();
    await sharePanel.locator('[data-testid="share-link-row"][data-state="expired"]').first().waitFor();
    t.diagnostic(`screenshot ${await saveElementScreenshot(sharePanel, 'share-panel')}`);

    // 8. The Share links page (Settings → Share links) lists the organization's links with their comparison.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Share links' }).click();
    const table = page.getByRole('table', { name: 'Share links of the organization' });
    await table.waitFor();
    for (const shared of [url, expiring]) {
      const row = table.getByTestId('share-link-row').filter({ hasText: `${shared.split('/r/')[1].slice(0, 12)}…` });
      assert.match(await row.innerText(), new RegExp(name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    }
    t.diagnostic(`screenshot ${await saveScreenshot(page, 'share-links-page')}`);
    assert.deepEqual(pageErrors, [], 'no uncaught errors in the signed-in page');
  } catch (error) {
    await saveScreenshot(page, 'share-failure');
    throw error;
  }
});

function readdirMatch(dir, pattern) {
  const name = readdirSync(dir).find((entry) => pattern.test(entry));
  return name ? path.join(dir, name) : null;
}
