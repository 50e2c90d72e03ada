import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { backends } from '../support/backends.js';
import { DashboardBrowser, describeInChromium, LAPTOP, PHONE } from '../support/browser.js';
import { accountWithUser } from '../support/dashboard-client.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

const LISTS_DIR = FIXTURE_LISTS_DIR;
/** A name on the small UK sanctions list fixture. */
const LISTED = 'BNK UK Limited';
/**
 * A public address literal: registering it resolves and connects to nothing. The webhook is added
 * after the journey's only screening, so nothing is ever delivered to it.
 */
const PUBLIC_HOOK = 'https://93.184.215.14/hooks/screening-complete';
/** Full-page screenshots of each step, kept as test artifacts (ignored by git), overwritten on each run. */
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/dashboard/', import.meta.url));

describeInChromium("a customer's journey through the dashboard in Chromium", () => {
  let api: TestApp;
  let browser: DashboardBrowser;

  beforeAll(async () => {
    api = await TestApp.start(backends()[0]!, { env: { LISTS_DIR, LISTS_ENABLED: 'uk_fcdo' } });
    await api.runtime.ctx.lists.settled();
    fs.rmSync(ARTIFACTS, { recursive: true, force: true });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    browser = await DashboardBrowser.launch(api.baseUrl);
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  const newPage = (viewport = LAPTOP) => browser.newPage(viewport);

  /**
   * Saves the whole page as `test-artifacts/dashboard/<name>.png`. `caret: 'initial'`: hiding the
   * caret (the default) leaves an empty `style` attribute on every input, which htmx's settle then
   * copies onto the swapped-in field, a CSP violation made by the test rather than the dashboard.
   */
  async function snap(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true, caret: 'initial' });
  }

  const heading = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();

  /** The number before " of " in the usage page's "used" figure (e.g. "1,234 of 10,000" → 1234). */
  async function usedThisMonth(page: Page): Promise<number> {
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.waitForURL('**/dashboard/usage');
    const used = (await page.locator('#usage-used').textContent())!;
    expect(used).toMatch(/^[\d,]+ of [\d,]+$/);
    return Number(used.split(' of ')[0]!.replaceAll(',', ''));
  }

  /** The status of GET /v1/usage with `key`, asked until it is 403 or a second has passed. */
  async function statusWithin1s(key: string): Promise<number> {
    const deadline = Date.now() + 1_000;
    for (;;) {
      const { status } = await api.request('GET', '/v1/usage', { key });
      if (status === 403 || Date.now() >= deadline) return status;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('walks a customer’s day in the browser: sign in, key used and revoked, a screening with its flags, usage growing, a webhook secret shown once, sign out', async () => {
    const user = await accountWithUser(api);
    const page = await newPage();

    // 1. Sign in.
    await page.goto(`${api.baseUrl}/dashboard/sign-in`);
    await expect(heading(page)).resolves.toBe('Sign in');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await snap(page, '01-sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/dashboard/keys');
    await expect(heading(page)).resolves.toBe('API keys');
    await expect(page.getByText(user.email).isVisible()).resolves.toBe(true);
    await snap(page, '02-keys');

    // 2. A key created in the page works on the API, then is revoked in the page and refused.
    await page.getByLabel('Name').fill('journey key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.locator('#new-key-value');
    await shown.waitFor();
    const key = (await shown.textContent())!.trim();
    expect(key).toMatch(/^cs_live_[0-9A-Za-z]{32}$/);
    await expect(page.getByText('it will not be shown again').isVisible()).resolves.toBe(true);
    await snap(page, '03-keys-new-key');
    expect((await api.request('GET', '/v1/usage', { key })).status).toBe(200);

    const masked = `cs_live_…${key.slice(-4)}`;
    await page.getByRole('button', { name: `Revoke key journey key (${masked})` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await expect(dialog.textContent()).resolves.toMatch(/Requests with it are refused within a second/);
    await snap(page, '04-keys-revoke-dialog');
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('is revoked').waitFor();
    const revokedRow = page.getByRole('row').filter({ hasText: masked });
    await expect(revokedRow.locator('.status-revoked').textContent()).resolves.toBe('Revoked');
    await snap(page, '05-keys-revoked');
    expect(await statusWithin1s(key)).toBe(403);

    // 3. A screening of a listed name in the console: its flags, and one more screening used.
    const usedBefore = await usedThisMonth(page);
    await snap(page, '06-usage-before');
    await page.getByRole('link', { name: 'Screen a name' }).click();
    await page.waitForURL('**/dashboard/screen');
    await expect(heading(page)).resolves.toBe('Screen a name');
    await page.getByLabel('Name', { exact: true }).fill(LISTED);
    await page.locator('input[name="type"][value="entity"]').check();
    await snap(page, '07-console');
    await page.getByRole('button', { name: 'Screen', exact: true }).click();
    await page.waitForURL('**/dashboard/screenings/*');
    const resultUrl = page.url();
    await expect(page.getByRole('heading', { name: `Result for “${LISTED}”` }).isVisible()).resolves.toBe(
      true,
    );
    const risk = page.locator('#risk-level');
    await expect(risk.isVisible()).resolves.toBe(true);
    await expect(risk.textContent()).resolves.toMatch(/^Risk: (Medium|High|Critical)$/);
    const flags = page.locator('#flags tbody.flag');
    expect(await flags.count()).toBeGreaterThanOrEqual(1);
    await expect(flags.first().locator('td[data-label="Source"]').textContent()).resolves.toBe('uk_fcdo');
    await expect(page.locator('#flags-title').textContent()).resolves.toMatch(/^\d+ flags?$/);
    await snap(page, '08-screening-result');
    await expect(usedThisMonth(page)).resolves.toBe(usedBefore + 1);
    await snap(page, '09-usage-after');

    // 4. A webhook: its signing secret is shown once, and not after a reload.
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL('**/dashboard/webhooks');
    await expect(heading(page)).resolves.toBe('Webhooks');
    await page.getByLabel('Endpoint URL').fill(PUBLIC_HOOK);
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secretShown = page.locator('#new-secret-value');
    await secretShown.waitFor();
    const secret = (await secretShown.textContent())!.trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await expect(page.getByText('it will not be shown again').isVisible()).resolves.toBe(true);
    await snap(page, '10-webhooks-secret');
    await page.reload();
    expect(await page.content()).not.toContain(secret);
    await expect(secretShown.count()).resolves.toBe(0);
    await expect(page.getByRole('row').filter({ hasText: PUBLIC_HOOK }).count()).resolves.toBe(1);
    await snap(page, '11-webhooks-reloaded');

    // 5. The audit log shows the requests just made, through the API and the dashboard.
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.waitForURL('**/dashboard/audit');
    await expect(heading(page)).resolves.toBe('Audit log');
    const rows = (await page.locator('#audit-rows tbody tr').allInnerTexts()).map((row) =>
      row.split('\t').map((cell) => cell.trim()),
    );
    const has = (method: string, pathname: string, status: string, by: string) =>
      rows.some(([, m, p, s, b]) => m === method && p === pathname && s === status && b === by);
    expect(has('GET', '/v1/usage', '200', masked), 'the key used on the API').toBe(true);
    expect(has('GET', '/v1/usage', '403', masked), 'the revoked key refused').toBe(true);
    expect(has('POST', '/dashboard/screen', '303', user.email), 'the console screening').toBe(true);
    expect(has('POST', '/dashboard/webhooks', '201', user.email), 'the webhook added').toBe(true);
    await snap(page, '12-audit');

    // The console's result on a phone: the stored result is still there, and fits 375 px.
    await page.setViewportSize(PHONE);
    await page.goto(resultUrl);
    await expect(risk.isVisible()).resolves.toBe(true);
    expect(await page.locator('#flags tbody.flag').count()).toBeGreaterThanOrEqual(1);
    await expect(
      page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth'),
    ).resolves.toBe(true);
    await snap(page, '13-phone-screening-result');
    await page.setViewportSize(LAPTOP);

    // 6. Sign out: the keys page now leads to the sign-in page.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/dashboard/sign-in');
    await expect(heading(page)).resolves.toBe('Sign in');
    await snap(page, '14-signed-out');
    await page.goto(`${api.baseUrl}/dashboard/keys`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    await expect(heading(page)).resolves.toBe('Sign in');
    await expect(page.getByRole('button', { name: 'Sign out' }).count()).resolves.toBe(0);
    await expect(page.getByText('journey key').count()).resolves.toBe(0);
    await snap(page, '15-keys-after-sign-out');
    await page.close();

    expect(browser.violations).toEqual([]);
  }, 40_000);
});
