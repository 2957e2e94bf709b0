// End-to-end: inviting a member. The demo owner invites a viewer on Settings → Members; the
// invitation email is read from the stack's web log (Django's console email backend, the
// development default); a fresh browser opens the emailed link, signs up and joins; the new
// viewer sees the organization and is refused starting a comparison.
//   E2E_STACK_DIR=… E2E_BASE_URL=… E2E_USERNAME=… E2E_PASSWORD=… node --test e2e/members.mjs
// Screenshots go to e2e/artifacts/ (gitignored).
/* global document -- the function given to page.evaluate runs inside the page */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { launchChromium } from './chromium.mjs';
import { env, openPage, openSignedIn, saveScreenshot } from './session.mjs';

const baseUrl = env('E2E_BASE_URL').replace(/\/$/, '');
const webLog = path.join(env('E2E_STACK_DIR'), 'logs', 'web.log');
const stamp = Date.now().toString(36);
const invitee = `viewer-${stamp}@example.com`;

let owner;
let guest;

before(async () => {
  owner = await openPage();
});

after(async () => {
  await owner?.browser.close();
  await guest?.close();
});

/** The accept link of the invitation emailed to `email`, from the console email in the web log. */
async function invitationLink(email, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = readFileSync(webLog, 'utf8');
    const mail = log.lastIndexOf(`To: ${email}`);
    const link = mail >= 0 ? /https?:\/\/\S+\/invitations\/\S+/.exec(log.slice(mail)) : null;
    if (link) return link[0];
    if (Date.now() > deadline) throw new Error(`no invitation email to ${email} in ${webLog}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

test('an owner invites a viewer, who joins from the emailed link and cannot start a comparison', async () => {
  const { page, pageErrors } = owner;
  await openSignedIn(page, `${baseUrl}/members`, page.getByRole('heading', { name: 'Members', exact: true }));
  await page.getByRole('form', { name: 'Invite a member' }).getByLabel('Email').fill(invitee);
  await page.getByLabel('Role', { exact: true }).selectOption('viewer');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await page.getByRole('status').filter({ hasText: `Invitation emailed to ${invitee}` }).waitFor();
  const pending = page.getByRole('table', { name: 'Pending invitations' });
  await pending.getByRole('rowheader', { name: invitee }).waitFor();
  await saveScreenshot(page, 'members-invited');

  const link = await invitationLink(invitee);
  assert.ok(link.startsWith(`${baseUrl}/invitations/`), link);

  guest = await launchChromium();
  const guestPage = await guest.context.newPage();
  guestPage.setDefaultTimeout(30_000);
  const guestErrors = [];
  guestPage.on('pageerror', (error) => guestErrors.push(String(error)));
  await guestPage.goto(link);
  const offer = guestPage.getByTestId('invitation-offer');
  await offer.waitFor();
  assert.match(await offer.innerText(), new RegExp(`invited ${invitee.replace('.', '\\.')} to join .+ as viewer`));
  await guestPage.getByLabel('Username', { exact: true }).fill(`vic-${stamp}`);
  await guestPage.getByLabel('Password', { exact: true }).fill('quiet-harbor-77');
  await guestPage.getByRole('button', { name: /^Join / }).click();

  // Signed in and acting for the organization: the top bar names both.
  const topbar = guestPage.locator('.topbar-user');
  await topbar.getByText(`vic-${stamp}`).waitFor();
  await guestPage.goto(`${baseUrl}/members`);
  const members = guestPage.getByRole('table', { name: 'Members' });
  await members.getByRole('rowheader', { name: new RegExp(`vic-${stamp} \\(you\\)`) }).waitFor();
  assert.equal(await guestPage.getByRole('form', { name: 'Invite a member' }).count(), 0);
  await saveScreenshot(guestPage, 'members-viewer');

  // A viewer reads comparisons but may not start one: the API refuses and says why.
  const refused = await guestPage.evaluate(async () => {
    const csrf = document.cookie.split('; ').find((c) => c.startsWith('csrftoken='))?.split('=')[1] ?? '';
    const listed = await fetch('/api/v1/comparisons');
    const started = await fetch('/api/v1/comparisons', {
      method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRFToken': csrf },
      body: JSON.stringify({ name: 'not allowed', preset: 'mid-image-series' }),
    });
    return { listed: listed.status, started: started.status, detail: (await started.json()).detail };
  });
  assert.equal(refused.listed, 200);
  assert.equal(refused.started, 403);
  assert.match(refused.detail, /Viewers have read-only access/);

  // The owner's page no longer lists the invitation as pending; the viewer is a member.
  await page.reload();
  await page.getByRole('table', { name: 'Members' }).getByRole('rowheader', { name: new RegExp(`vic-${stamp}`) })
    .waitFor();
  assert.deepEqual(pageErrors, []);
  assert.deepEqual(guestErrors, []);
});
