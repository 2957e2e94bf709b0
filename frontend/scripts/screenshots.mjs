// Development aid, not a test: serves the built app with `vite preview`, answers /api from
// the unit-test fixtures inside the browser (page.route), and screenshots every page into
// screenshots/. Run `npm run build && npm run screenshots`.
/* global document, requestAnimationFrame -- the functions given to waitForFunction and evaluate run inside the page */
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
// The other presets' results (scripts/gen-results-fixtures.py), served under their own ids.
const presetResults = [
  { name: 'detail-delay-sweep', preset: 'os-added-latency', title: 'OS-added latency: delay sweep 0–1000 ms', results: fixture('results-os-added-latency.json') },
  { name: 'detail-payload-sweep', preset: 'payload-sweep', title: 'Payload sweep: build 2.2 vs 2.2.1', results: fixture('results-payload-sweep.json') },
  { name: 'detail-api', preset: 'api-and-download', title: 'API calls: first call vs the rest', results: fixture('results-api-and-download.json') },
];
const byId = new Map(presetResults.map((entry) => [entry.results.comparison, entry]));
// Each results fixture's CI verdict (GET …/verdict), and the organization's network profiles.
const verdicts = new Map(
  ['mid-image-series', 'os-added-latency', 'payload-sweep', 'api-and-download']
    .map((preset) => fixture(`verdict-${preset}.json`))
    .map((verdict) => [verdict.comparison, verdict]),
);
const networkProfiles = fixture('network-profiles.json');
const pools = fixture('pools.json');
const detailFor = (entry) => ({
  ...detail,
  id: entry.results.comparison,
  name: entry.title,
  preset: entry.preset,
  spec: { ...detail.spec, name: entry.title, preset: entry.preset, baseline_arm: entry.results.baseline_arm,
          arms: entry.results.arms.map((label) => ({ label, protocol: 'h2', connection: 'warm' })) },
});
// As the unit tests' fixture (src/testing/fixtures: meFixture): the organisation switcher reads the list.
const me = { username: 'ada', organization: { slug: 'acme', name: 'Acme Mobile' }, role: 'owner',
  organizations: [{ slug: 'acme', name: 'Acme Mobile', role: 'owner' }] };
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
    if (p.endsWith('/auth/signup')) return json({ open: false });
    if (p.endsWith('/presets')) return json(presets);
    if (p.endsWith('/comparisons') && method === 'GET') return json(page1);
    if (p.endsWith('/comparisons/validate')) {
      // The builder's live check: a valid spec and what it would book.
      return json({ spec: {}, estimate: { runs: 2, blocks_min: 12, blocks_max: 12, requests_min: 8640, requests_max: 8640,
        device_minutes_min: 28.8, device_minutes_max: 28.8, seconds_per_request: 0.2, pace_basis: 'recent', pace_comparisons: 5 } });
    }
    if (p.endsWith('/comparisons') && method === 'POST') {
      return json({ arms: { 1: { protocol: ['"h4" is not a valid choice.'] } }, blocks: ['Ensure this value is less than or equal to 50.'] }, 400);
    }
    if (p.endsWith('/network-profiles')) return json(networkProfiles);
    if (p.endsWith('/pools')) return json(pools);
    if (p.endsWith('/verdict')) {
      const verdict = !running && verdicts.get(p.split('/')[4]);
      return verdict ? json(verdict) : json({ detail: 'The comparison is running; its verdict exists once it is finished.' }, 409);
    }
    const other = byId.get(p.split('/')[4]);
    if (other && p.endsWith('/results')) return json(other.results);
    if (other) return json(detailFor(other));
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

const RESULT_SECTIONS = [
  { name: 'verdict', selector: '[data-testid="verdict-banner"]' },
  { name: 'effects', selector: 'section[aria-label="Effect sizes"]' },
  ...['chart-delay-added', 'chart-delay-measured', 'chart-payload', 'chart-first-rest', 'chart-distribution', 'chart-phases']
    .map((id) => ({ name: id, selector: `.chart-card:has([data-testid="${id}"])` })),
  { name: 'profiles', selector: 'section[aria-label="Compare across network profiles"]' },
  { name: 'devices', selector: 'section[aria-label="Compare across devices"]' },
];

async function shot(name, url, options = {}, act = async () => {}) {
  const page = await context.newPage();
  await mockApi(page, options);
  await page.goto(base + url);
  await act(page);
  // Charts are drawn one at a time, visible ones first: the picture waits for all of them.
  await page.waitForFunction(() => document.querySelectorAll('.plot[data-state="loading"]').length === 0, null,
    { timeout: 30_000 });
  // Then what the last chart's drawing set off has painted: the web fonts and two frames.
  await page.evaluate(() => document.fonts.ready);
  await page.evaluate(() => new Promise((painted) => requestAnimationFrame(() => requestAnimationFrame(painted))));
  await page.screenshot({ path: path.join(outDir, `${name}.png`), fullPage: true });
  console.log(`screenshots/${name}.png`);
  // Close-ups of the results sections, readable at full size next to the full page.
  for (const section of options.sections ?? []) {
    const target = page.locator(section.selector).first();
    if ((await target.count()) === 0) continue;
    await target.screenshot({ path: path.join(outDir, `${name}--${section.name}.png`) });
    console.log(`screenshots/${name}--${section.name}.png`);
  }
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
  await shot('detail-finished', `/comparisons/${detail.id}`, { sections: RESULT_SECTIONS }, async (page) => {
    await page.locator('[data-testid="chart-series"][data-state="ready"]').waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="chart-profiles-series"][data-state="ready"]').waitFor({ timeout: 30_000 });
  });
  for (const entry of presetResults) {
    await shot(entry.name, `/comparisons/${entry.results.comparison}`, { sections: RESULT_SECTIONS }, (page) =>
      page.locator('[data-testid="chart-distribution"][data-state="ready"]').waitFor({ timeout: 30_000 }),
    );
  }
} finally {
  await close();
  await new Promise((resolve) => server.httpServer.close(resolve));
}
