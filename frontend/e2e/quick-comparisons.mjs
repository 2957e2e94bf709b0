// Small comparisons created through the API with the signed-in page's session (the same
// cookies and CSRF token the dashboard uses), for the pages that list or follow comparisons.
import assert from 'node:assert/strict';
import { waitForTerminalStatus } from './session.mjs';

/** h1 vs h2 on the stack's host runner: a few echo API calls per block, done in seconds. The rounds are
 * spread over the blocks: keep rounds ≥ blocks (a block left without a round fails at the runner). */
export function quickSpec({ name, tags, blocks = 2, rounds = 3, calls = 3 }) {
  return {
    name,
    arms: [
      { label: 'https-h1', protocol: 'h1' },
      { label: 'h2', protocol: 'h2', connection: 'warm' },
    ],
    baseline_arm: 'https-h1',
    workload: { kind: 'api', rounds, calls },
    devices: { platforms: ['host'] },
    network_profiles: ['none'],
    blocks,
    tags,
  };
}

async function csrfToken(page, baseUrl) {
  const find = async () => (await page.context().cookies(baseUrl)).find((c) => c.name === 'csrftoken')?.value;
  if (!(await find())) await page.request.get(`${baseUrl}/api/v1/auth/csrf`);
  const token = await find();
  assert.ok(token, 'no CSRF cookie after /api/v1/auth/csrf');
  return token;
}

export async function createComparison(page, baseUrl, spec) {
  const response = await page.request.post(`${baseUrl}/api/v1/comparisons`, {
    data: spec,
    headers: { 'X-CSRFToken': await csrfToken(page, baseUrl), Referer: `${baseUrl}/` },
  });
  assert.equal(response.status(), 201, `creating ${spec.name}: ${await response.text()}`);
  return response.json();
}

/** Waits until the comparison is finished, failed or cancelled, as its own page shows it (a
 * second tab of the same session, which follows the comparison as a user's does), and returns
 * its state from the API; after `timeoutMs` without an end, its state then. */
export async function waitForComparison(page, baseUrl, id, timeoutMs) {
  const watcher = await page.context().newPage();
  try {
    await watcher.goto(`${baseUrl}/comparisons/${id}`);
    await waitForTerminalStatus(watcher, timeoutMs);
  } finally {
    await watcher.close();
  }
  return (await page.request.get(`${baseUrl}/api/v1/comparisons/${id}`)).json();
}
