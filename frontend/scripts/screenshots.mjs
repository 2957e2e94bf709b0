// Development aid, not a test: serves the built app with `vite preview`, answers /api from
// the unit-test fixtures inside the browser (page.route), and screenshots every page into
// screenshots/. Run `npm run build && npm run screenshots`.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { preview } from 'vite';
import { launchChromium } from '../e2e/chromium.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const fixture = (name) => JSON.parse(readFileSync(path.join(root, 'src/testing/fixtures', name), 'utf8'));
const presets = fixture('presets.json');
const page1 = fixture('comparisons-page.json');
const detail = fixture('comparison-detail.json');
const results = fixture('results-mid-image-series.json');
const me = { username: 'ada', organization: { slug: 'acme', name: 'Acme Mobile' } };
const outDir = path.join(root, 'screenshots');
mkdirSync(outDir, { recursive: true });

const server = await preview({ root, preview: { port: 4317, strictPort: true, host: '127.0.0.1' } });
const base = 'http://127.0.0.1:4317';
const { context, close } = await launchChromium();

function mockApi(page, { signedIn = true, running = false } = {}) {
  return page.route('**/api/v1/**', async (route) => {
    const url = new URL(route.request().url());
    const method = route.request().method();
    const json = (body, status = 200) => route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });
    const p = url.pathname;
    if (p.endsWith('/auth/csrf')) return route.fulfill({ status: 204, headers: { 'set-cookie': 'csrftoken=abc; Path=/' } });
    if (p.endsWith('/auth/me')) return signedIn ? json(me) : json({ detail: 'Not signed in.' }, 403);
    if (p.endsWith('/auth/login')) return json({ detail: 'Wrong username or password.' }, 400);
    if (p.endsWith('/presets')) return json(presets);
    if (p.endsWith('/comparisons') && method === 'GET') return json(page1);
    if (p.endsWith('/comparisons') && method === 'POST') {
      return json({ arms: { 1: { protocol: ['"h4" is not a valid choice.'] } }, blocks: ['Ensure this value is less than or equal to 50.'] }, 400);
    }
    if (p.endsWith('/results')) {
      return running ? json({ ...results, status: 'running', groups: [] }) : json(results);
    }
    if (/\/comparisons\/[^/]+$/.test(p)) {
      return running
        ? json({ ...detail, status: 'running', finished_at: null, progress: { runs_total: 2, runs_done: 0, blocks_total: 12, blocks_done: 5, percent: 41.7 },
            runs: detail.runs.map((r, i) => ({ ...r, status: i ? 'queued' : 'leased', next_block: i ? 0 : 5 })) })
        : json(detail);
    }
    return json({ detail: 'unmocked' }, 404);
  });
}

async function shot(name, url, options = {}, act = async () => {}) {
  const page = await context.newPage();
  await mockApi(page, options);
  await page.goto(base + url);
  await act(page);
  await page.waitForTimeout(400);
  await page.screenshot({ path: path.join(outDir, `${name}.png`), fullPage: true });
  console.log(`screenshots/${name}.png`);
  await page.close();
}

try {
  await shot('login', '/login', { signedIn: false }, async (page) => {
    await page.getByLabel('Username').fill('ada');
    await page.getByLabel('Password').fill('nope');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
  });
  await shot('comparisons', '/comparisons', {}, (page) => page.getByTestId('comparison-row').first().waitFor());
  await shot('new-comparison', '/comparisons/new', {}, (page) => page.getByLabel('Blocks').waitFor());
  await shot('new-comparison-errors', '/comparisons/new', {}, async (page) => {
    await page.getByLabel('Blocks').fill('99');
    await page.getByRole('button', { name: 'Create comparison' }).click();
    await page.getByRole('alert').waitFor();
  });
  await shot('detail-running', `/comparisons/${detail.id}`, { running: true }, (page) => page.getByRole('progressbar').waitFor());
  await shot('detail-finished', `/comparisons/${detail.id}`, {}, (page) =>
    page.locator('[data-testid="chart-series"][data-state="ready"]').waitFor({ timeout: 30_000 }),
  );
} finally {
  await close();
  await new Promise((resolve) => server.httpServer.close(resolve));
}
