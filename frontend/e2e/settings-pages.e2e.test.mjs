// End-to-end: the settings pages against the real service. Network profiles: a value out
// of bounds refused at its field, then a profile created. API tokens: one created on the
// page is used against the API with its shown secret, then revoked and refused. Webhooks:
// one registered to a receiver this test runs on 127.0.0.1 (the stack allows loopback
// receivers: WEBHOOKS_ALLOW_LOOPBACK, on outside production) gets a signed delivery when a
// comparison ends, and the page's Redeliver sends it again.
//   E2E_BASE_URL=… E2E_USERNAME=… E2E_PASSWORD=… node --test e2e/settings-pages.e2e.test.mjs
// Optional: E2E_DELIVERY_TIMEOUT_MS (60000). Screenshots go to e2e/artifacts/ (gitignored).
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { env, fetchOnce, openPage, openSignedIn, saveScreenshot } from './session.mjs';

const baseUrl = env('E2E_BASE_URL').replace(/\/$/, '');
const deliveryTimeoutMs = Number(env('E2E_DELIVERY_TIMEOUT_MS', '60000'));
const stamp = Date.now().toString(36);

let browser;
let page;
let pageErrors = [];
let receiver;
const received = [];
let webhookSecret = '';
let webhookUrl = '';

before(async () => {
  ({ browser, page, pageErrors } = await openPage());
  // The customer's webhook receiver: records each POST and answers 200.
  receiver = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      received.push({ headers: request.headers, body: body.toString(), raw: body });
      response.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  webhookUrl = `http://127.0.0.1:${receiver.address().port}/hooks/latencylab-e2e`;
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve()));
});

async function waitUntil(predicate, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const bearer = (secret, path, init = {}) =>
  fetchOnce(`${baseUrl}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json', ...(init.headers ?? {}) },
  });

test('network profiles: the bounds are shown, an out-of-range value is refused at its field, then a profile is created', { timeout: 120_000 }, async (t) => {
  try {
    await openSignedIn(page, `${baseUrl}/comparisons`, page.getByRole('heading', { name: 'Comparisons', level: 1 }));
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Network profiles' }).click();
    await page.getByRole('heading', { name: 'Network profiles', level: 1 }).waitFor();
    const presets = page.getByRole('table', { name: 'Built-in presets' });
    assert.match(await presets.getByRole('row', { name: /^lte/ }).innerText(), /12,000 kbit\/s/);

    const form = page.getByRole('form', { name: 'New network profile' });
    const down = form.getByRole('group', { name: /Downlink/ });
    const delay = down.getByLabel('Delay (ms)', { exact: true });
    await delay.waitFor();
    const hintId = (await delay.getAttribute('aria-describedby')).split(' ')[0];
    assert.equal(await page.locator(`[id="${hintId}"]`).innerText(), '0–60,000 ms, default 0', 'the bound comes from the server');

    const name = `e2e-${stamp}`;
    await form.getByLabel('Name', { exact: true }).fill(name);
    await delay.fill('70000');
    await down.getByLabel('Rate (kbit/s)', { exact: true }).fill('8000');
    await form.getByRole('group', { name: /Uplink/ }).getByLabel('Delay (ms)', { exact: true }).fill('40');
    await form.getByRole('button', { name: 'Create profile' }).click();
    await page.waitForFunction((el) => el?.getAttribute('aria-invalid') === 'true', await delay.elementHandle());
    const errorsId = (await delay.getAttribute('aria-describedby')).split(' ')[1];
    const message = await page.locator(`[id="${errorsId}"]`).innerText();
    t.diagnostic(`refused at the field: ${message}`);
    assert.match(message, /less than or equal to 60000/);
    await saveScreenshot(page, 'settings-network-profile-bound-error');

    await delay.fill('40');
    await form.getByRole('button', { name: 'Add a blackout' }).click();
    await form.getByLabel('Every (s)', { exact: true }).fill('30');
    await form.getByLabel('For (s)', { exact: true }).fill('2');
    await form.getByRole('button', { name: 'Create profile' }).click();
    const row = page.getByTestId(`profile-${name}`);
    await row.waitFor();
    const text = await row.innerText();
    assert.match(text, /40 ms · 8,000 kbit\/s · queue 1,000 packets/);
    assert.match(text, /2 s every 30 s/);
    const listed = await page.evaluate(async () => (await fetch('/api/v1/network-profiles')).json());
    const created = listed.find((profile) => profile.name === name);
    assert.deepEqual([created.rtt_ms, created.spec.down.rate_kbit, created.spec.blackouts], [80, 8000, [{ every_s: 30, duration_s: 2 }]]);
    await saveScreenshot(page, 'settings-network-profiles');
    assert.deepEqual(pageErrors, []);
  } catch (error) {
    await saveScreenshot(page, 'settings-network-profiles-failure');
    throw error;
  }
});

test('webhooks: a receiver on 127.0.0.1 is registered and its signing secret shown once', { timeout: 60_000 }, async () => {
  try {
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByLabel('Receiver URL', { exact: true }).fill(webhookUrl);
    await page.getByRole('button', { name: 'Register webhook' }).click();
    const secretBox = page.getByTestId('new-webhook-secret');
    webhookSecret = await secretBox.getByRole('textbox').inputValue();
    assert.match(webhookSecret, /^whsec_/);
    await page.getByRole('article', { name: webhookUrl }).waitFor();
    await saveScreenshot(page, 'settings-webhook-registered');
    await secretBox.getByRole('button', { name: 'Done' }).click();
  } catch (error) {
    await saveScreenshot(page, 'settings-webhooks-failure');
    throw error;
  }
});

test('API tokens: the secret shown once works against the API until revoked on the page', { timeout: 120_000 }, async (t) => {
  try {
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'API tokens' }).click();
    await page.getByRole('heading', { name: 'API tokens', level: 1 }).waitFor();
    const name = `e2e token ${stamp}`;
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByRole('checkbox', { name: /write/ }).check();
    await page.getByLabel('Expires after', { exact: true }).selectOption({ label: '7 days' });
    await page.getByRole('button', { name: 'Create token' }).click();
    const box = page.getByTestId('new-api-token');
    await box.waitFor();
    assert.match(await box.innerText(), /will not be shown again/);
    const secret = await box.getByRole('textbox').inputValue();
    assert.match(secret, /^llt_/);
    await saveScreenshot(page, 'settings-token-created');

    const me = await bearer(secret, '/api/v1/auth/me');
    assert.equal(me.status, 200);
    // The token writes: a small comparison (one block, three requests per arm) whose end notifies the webhook.
    const created = await bearer(secret, '/api/v1/comparisons', {
      method: 'POST',
      body: JSON.stringify({ name: `e2e webhook ${stamp}`, preset: 'mid-image-series',
        workload: { kind: 'series', periods: [3], repetitions: 1 }, blocks: 1 }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const comparison = await created.json();
    t.diagnostic(`comparison ${comparison.id}`);
    let ended;
    await waitUntil(async () => {
      ended = await (await bearer(secret, `/api/v1/comparisons/${comparison.id}`)).json();
      return ['finished', 'failed', 'cancelled'].includes(ended.status);
    }, deliveryTimeoutMs * 3, 'the comparison to end');
    t.diagnostic(`comparison ${ended.status}`);

    await page.getByTestId('new-api-token').getByRole('button', { name: 'Done' }).click();
    const row = page.getByRole('row', { name: new RegExp(name) });
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: `Revoke ${name}` }).click();
    await row.getByText('Revoked', { exact: true }).waitFor();
    const refused = await bearer(secret, '/api/v1/auth/me');
    assert.equal(refused.status, 401);
    assert.match((await refused.json()).detail, /revoked/);
    await saveScreenshot(page, 'settings-tokens');
    globalThis.e2eComparison = ended;
  } catch (error) {
    await saveScreenshot(page, 'settings-tokens-failure');
    throw error;
  }
});

test('webhooks: the delivery arrives signed, is listed with its status, and Redeliver sends it again', { timeout: deliveryTimeoutMs * 2 + 60_000 }, async (t) => {
  try {
    const comparison = globalThis.e2eComparison;
    assert.ok(comparison, 'the token test created a comparison');
    await waitUntil(() => received.length >= 1, deliveryTimeoutMs, 'the first delivery at the receiver');
    const first = received[0];
    const expected = `sha256=${createHmac('sha256', webhookSecret).update(first.raw).digest('hex')}`;
    assert.equal(first.headers['x-latencylab-signature'], expected, 'signed with the secret shown once');
    const body = JSON.parse(first.body);
    const event = comparison.status === 'finished' ? 'comparison.finished' : 'comparison.failed';
    assert.equal(body.event, event);
    assert.equal(body.comparison.id, comparison.id);
    assert.equal(body.comparison.status, comparison.status);

    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Webhooks' }).click();
    const card = page.getByRole('article', { name: webhookUrl });
    await card.getByRole('button', { name: 'Deliveries' }).click();
    const delivery = card.getByTestId('delivery').filter({ hasText: comparison.name });
    await delivery.getByText('Delivered', { exact: true }).waitFor({ timeout: deliveryTimeoutMs });
    assert.ok((await delivery.innerText()).includes(event));
    assert.match(await delivery.innerText(), /HTTP 200/);
    await saveScreenshot(page, 'settings-webhook-delivered');

    await delivery.getByRole('button', { name: `Redeliver ${comparison.name}` }).click();
    await waitUntil(() => received.length >= 2, deliveryTimeoutMs, 'the redelivery at the receiver');
    const second = received[1];
    assert.equal(second.headers['x-latencylab-delivery'], first.headers['x-latencylab-delivery'], 'the same delivery');
    assert.deepEqual(JSON.parse(second.body).comparison, body.comparison);
    // Cells after the comparison: event, status, attempts, last answer, created, delivered.
    const attempts = delivery.locator('td').nth(2);
    await waitUntil(
      async () => (await attempts.innerText()) === '2' && (await delivery.getByText('Delivered', { exact: true }).count()) === 1,
      deliveryTimeoutMs,
      'the page to show the second, successful attempt',
    );
    t.diagnostic(`delivery row: ${(await delivery.innerText()).replace(/\s+/g, ' ')}`);
    await saveScreenshot(page, 'settings-webhook-redelivered');
    assert.equal(received.length, 2, 'nothing else was sent');
    assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
  } catch (error) {
    await saveScreenshot(page, 'settings-webhook-deliveries-failure');
    throw error;
  }
});
