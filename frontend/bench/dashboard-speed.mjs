// Dashboard speed benchmark (make bench): how fast a comparison of ~200,000 samples and its
// public report become interactive in Chromium, and how much JavaScript each page ships.
// Prints figures; never passes or fails on timing (the machine is shared and noisy).
//
//   BENCH_BASE_URL=http://127.0.0.1:8000 BENCH_USERNAME=demo BENCH_PASSWORD=… \
//   BENCH_COMPARISON=<id> [BENCH_SHARE_TOKEN=<token>] [BENCH_RUNS=5] node bench/dashboard-speed.mjs
//
// infra/bench/dashboard_speed.sh builds the dashboard, starts a stack, seeds the comparison
// (infra/bench/seed_dashboard.py) and runs this.
//
// Per page load, from navigation start (performance.now() in the page):
//   first chart:  the first Plotly chart drawn (.plot[data-state="ready"], set after Plotly.react resolves)
//   first screen: the first screenful of charts drawn: every chart starting less than one screen
//                 (1440×900) below the first chart's top, i.e. what a reader sees on reaching the charts
//   all charts:   every chart of the page drawn (the count a warm-up load settled on), without scrolling:
//                 charts are drawn one at a time, the visible ones first, then the rest in page order
//   longest task: the longest main-thread task after Plotly was evaluated (Long Tasks API), i.e. how
//                 long a click could wait while the charts are drawn
// Timed loads are cold (a new page, HTTP cache cleared: a first visit) and warm (cache kept: a repeat visit).
/* global window, document, MutationObserver -- functions below run inside the page */
import { cpus, loadavg } from 'node:os';
import { launchChromium } from '../e2e/chromium.mjs';

const env = (name, fallback) => {
  const value = process.env[name] ?? fallback;
  if (value === undefined || value === '') throw new Error(`${name} is not set; see the header of ${import.meta.url}`);
  return value;
};
const baseUrl = env('BENCH_BASE_URL').replace(/\/$/, '');
const comparison = env('BENCH_COMPARISON');
const shareToken = process.env.BENCH_SHARE_TOKEN ?? '';
const runs = Number(env('BENCH_RUNS', '5'));
const TARGET_S = 1.5;
const SETTLE_TIMEOUT_MS = 120_000;

// Records, from navigation start, when the first chart, the first screen's charts and `expected` charts are drawn.
function chartClock(expected) {
  window.__chartTimes = { first: null, screen: null, all: null, expected, screenCharts: 0, longTasks: [] };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__chartTimes.longTasks.push([entry.startTime, entry.duration]);
  }).observe({ type: 'longtask', buffered: true });
  const check = () => {
    const charts = [...document.querySelectorAll('.plot')];
    const ready = charts.filter((chart) => chart.dataset.state === 'ready').length;
    const times = window.__chartTimes;
    if (ready > 0 && times.first === null) {
      times.first = performance.now();
      performance.mark('latencylab:first-chart');
    }
    // The first screenful of charts: those starting less than one screen below the first chart's top
    // (on the comparison page the charts begin below the first screen, under progress and verdict).
    const firstTop = Math.min(...charts.map((chart) => chart.getBoundingClientRect().top));
    const onScreen = charts.filter((chart) => chart.getBoundingClientRect().top < firstTop + window.innerHeight);
    if (times.screen === null && charts.length >= times.expected && onScreen.length > 0
      && onScreen.every((chart) => chart.dataset.state === 'ready')) {
      times.screen = performance.now();
      times.screenCharts = onScreen.length;
    }
    if (times.expected > 0 && ready >= times.expected && times.all === null) {
      times.all = performance.now();
      performance.mark('latencylab:all-charts');
    }
  };
  // Only a chart's data-state changing wakes the clock: watching every node Plotly adds (childList)
  // ran this check, and its layout reads, hundreds of times per chart, slowing the page it timed.
  new MutationObserver(check).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-state'] });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const kb = (bytes) => `${(bytes / 1024).toFixed(0).padStart(6)} KB`;

async function signIn(page) {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel('Username', { exact: true }).fill(env('BENCH_USERNAME'));
  await page.getByLabel('Password', { exact: true }).fill(env('BENCH_PASSWORD'));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
}

/** Loads `url` in a new page; returns the scripts it fetched and, once settled, how many charts it drew. */
async function settle(context, url, { waitForCharts }) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.clearBrowserCache');
  const scripts = new Map();
  page.on('response', async (response) => {
    if (response.request().resourceType() !== 'script') return;
    const sizes = await response.request().sizes().catch(() => null);  // encoded body + headers
    const body = await response.body().catch(() => Buffer.alloc(0));
    scripts.set(response.url(), { transfer: sizes ? sizes.responseBodySize + sizes.responseHeadersSize : body.length,
      body: body.length });
  });
  await page.goto(url, { waitUntil: 'networkidle' });
  let charts = 0;
  if (waitForCharts) {
    await page.locator('.plot').first().waitFor({ timeout: SETTLE_TIMEOUT_MS });
    await page.waitForFunction(() => document.querySelectorAll('.plot').length > 0
      && document.querySelectorAll('.plot:not([data-state="ready"])').length === 0, null,
    { timeout: SETTLE_TIMEOUT_MS });
    await page.waitForLoadState('networkidle');
    charts = await page.locator('.plot[data-state="ready"]').count();
  }
  await cdp.detach().catch(() => {});
  await page.close();
  return { scripts, charts };
}

async function timeCharts(context, url, expected, { cold }) {
  const times = [];
  for (let i = 0; i < runs; i += 1) {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    if (cold) await cdp.send('Network.clearBrowserCache');
    await page.addInitScript(chartClock, expected);
    await page.goto(url);
    await page.waitForFunction(() => window.__chartTimes?.all !== null && window.__chartTimes?.all !== undefined,
      null, { timeout: SETTLE_TIMEOUT_MS, polling: 50 });
    times.push(await page.evaluate(() => ({
      ...window.__chartTimes,
      longestTask: Math.max(0, ...window.__chartTimes.longTasks
        .filter(([start]) => start >= (performance.getEntriesByName('latencylab:plotly-loaded')[0]?.startTime ?? Infinity))
        .map(([, duration]) => duration)),
      // plot.tsx marks when the Plotly chunk is asked for and when it has been evaluated.
      plotlyRequested: performance.getEntriesByName('latencylab:plotly-requested')[0]?.startTime ?? NaN,
      plotlyLoaded: performance.getEntriesByName('latencylab:plotly-loaded')[0]?.startTime ?? NaN,
    })));
    await cdp.detach().catch(() => {});
    await page.close();
  }
  return times;
}

function printScripts(name, scripts) {
  let transfer = 0;
  let body = 0;
  const names = [];
  for (const [url, size] of scripts) {
    transfer += size.transfer;
    body += size.body;
    names.push(`${new URL(url).pathname.split('/').pop()} ${kb(size.body).trim()}`);
  }
  const plotly = [...scripts.keys()].some((url) => /plotly/i.test(url));
  console.log(`  ${name.padEnd(22)} ${kb(body)} (${kb(transfer).trim()} transferred)  Plotly: ${plotly ? 'yes' : 'no '}  [${names.join(', ')}]`);
}

async function main() {
  const browser = await launchChromium();
  try {
    const { context } = browser;
    const anonymous = await settle(context, `${baseUrl}/login`, { waitForCharts: false });
    const signInPage = await context.newPage();
    await signIn(signInPage);
    await signInPage.close();

    const pages = [
      ['login', `${baseUrl}/login`, false, anonymous],
      ['home', `${baseUrl}/`, false],
      ['comparisons list', `${baseUrl}/comparisons`, false],
      ['comparison page', `${baseUrl}/comparisons/${comparison}`, true],
      ['devices', `${baseUrl}/devices`, false],
    ];
    if (shareToken) pages.push(['public report /r/…', `${baseUrl}/r/${shareToken}`, true]);

    const settled = {};
    for (const [name, url, charts, known] of pages) {
      settled[name] = known ?? await settle(context, url, { waitForCharts: charts });
    }

    console.log(`Dashboard speed: ${runs} cold loads (HTTP cache cleared) and ${runs} warm ones per page, Chromium headless; target < ${TARGET_S} s;`
      + ` load average ${loadavg()[0].toFixed(1)} on ${cpus().length} CPUs`);
    for (const [name, url, charts] of pages) {
      if (!charts) continue;
      const expected = settled[name].charts;
      for (const cold of [true, false]) {
        const times = await timeCharts(context, url, expected, { cold });
        const first = times.map((t) => t.first);
        const screen = times.map((t) => t.screen ?? NaN);
        const all = times.map((t) => t.all);
        const verdict = (ms) => (ms < TARGET_S * 1000 ? 'under' : `OVER by ${seconds(ms - TARGET_S * 1000)}`);
        console.log(`  ${name}, ${cold ? 'cold (first visit)' : 'warm (cached, a repeat visit)'}: ${expected} charts, `
          + `${Math.max(...times.map((t) => t.screenCharts))} of them in the first screenful (target < ${TARGET_S} s each)`);
        console.log(`    first chart   median ${seconds(median(first))} (${verdict(median(first))}): ${first.map(seconds).join(', ')}`);
        console.log(`    first screen  median ${seconds(median(screen))} (${verdict(median(screen))}): ${screen.map(seconds).join(', ')}`);
        console.log(`    all charts    median ${seconds(median(all))} (${verdict(median(all))}): ${all.map(seconds).join(', ')}`);
        console.log(`    longest main-thread task after Plotly was evaluated, median ${seconds(median(times.map((t) => t.longestTask)))}`);
        console.log(`    where the time goes (medians): Plotly asked for at ${seconds(median(times.map((t) => t.plotlyRequested)))},`
          + ` loaded and evaluated at ${seconds(median(times.map((t) => t.plotlyLoaded)))},`
          + ` charts drawn ${seconds(median(times.map((t) => t.all - t.plotlyLoaded)))} after that`);
      }
    }
    if (!shareToken) console.log('  public report: skipped (no BENCH_SHARE_TOKEN)');

    console.log('JavaScript shipped per page (decoded body; transferred incl. headers):');
    for (const [name] of pages) printScripts(name, settled[name].scripts);
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
