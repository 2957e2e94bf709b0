// Small comparisons created through the API with the signed-in page's session (the same
// cookies and CSRF token the dashboard uses), for the pages that list or follow comparisons.
import assert from 'node:assert/strict';

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

/** Poll the comparison until it is finished, failed or cancelled; returns its last state. */
export async function waitForComparison(page, baseUrl, id, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const body = await (await page.request.get(`${baseUrl}/api/v1/comparisons/${id}`)).json();
    if (['finished', 'failed', 'cancelled'].includes(body.status) || Date.now() > deadline) return body;
    await page.waitForTimeout(1_000);
  }
}
