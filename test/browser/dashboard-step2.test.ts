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
 * A public address literal: registering it resolves and connects to nothing, and the accounts that
 * register it never screen, so nothing is ever delivered to it.
 */
const PUBLIC_HOOK = 'https://93.184.215.14/hooks/a-rather-long-path-for-a-phone-screen/screening-complete';

describeInChromium("the dashboard's webhooks, screening console and audit log in Chromium", () => {
  let api: TestApp;
  let browser: DashboardBrowser;

  beforeAll(async () => {
    api = await TestApp.start(backends()[0]!, { env: { LISTS_DIR, LISTS_ENABLED: 'uk_fcdo' } });
    await api.runtime.ctx.lists.settled();
    browser = await DashboardBrowser.launch(api.baseUrl);
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  const newPage = (viewport = LAPTOP) => browser.newPage(viewport);

  const signIn = (page: Page, user: { email: string; password: string }) => browser.signIn(page, user);

  /** Presses Tab until the focused element matches the selector (at most `limit` times). */
  async function tabTo(page: Page, selector: string, limit = 60): Promise<void> {
    for (let i = 0; i < limit; i++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate(`document.activeElement.matches(${JSON.stringify(selector)})`)) return;
    }
    throw new Error(`Tab never reached ${selector}`);
  }

  const fits = (page: Page) =>
    page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth');

  async function screenInConsole(page: Page, name: string): Promise<void> {
    await page.goto(`${api.baseUrl}/dashboard/screen`);
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.locator('input[name="type"][value="entity"]').check();
    await page.getByRole('button', { name: 'Screen', exact: true }).click();
    await page.waitForURL('**/dashboard/screenings/*');
  }

  it('screens a name in the console and opens a flag’s details with the keyboard alone', async () => {
    const user = await accountWithUser(api);
    const page = await newPage();
    await signIn(page, user);
    await page.goto(`${api.baseUrl}/dashboard/screen`);
    await tabTo(page, '#query');
    await page.keyboard.type(LISTED);
    await page.keyboard.press('Enter');
    await page.waitForURL('**/dashboard/screenings/*');
    // Screened as any kind (the default type): the listed company's level is written out.
    await expect(page.locator('#risk-level').textContent()).resolves.toMatch(
      /^Risk: (Medium|High|Critical)$/,
    );
    const details = page.locator('#flag-1');
    await expect(details.getAttribute('open')).resolves.toBeNull();
    await tabTo(page, '#flag-1 > summary');
    const outline = await page.evaluate('getComputedStyle(document.activeElement).outlineStyle');
    expect(outline).not.toBe('none');
    await page.keyboard.press('Enter');
    await expect(details.getAttribute('open')).resolves.toBe('');
    await expect(details.getByText('Why it matched').isVisible()).resolves.toBe(true);
    await expect(details.getByRole('table', { name: 'Token pairs' }).isVisible()).resolves.toBe(true);
    await page.close();
  });

  it('adds a webhook, shows its secret once with a copy button that copies it, and deletes it after confirming', async () => {
    const user = await accountWithUser(api);
    const page = await newPage();
    await signIn(page, user);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL('**/dashboard/webhooks');
    await page.getByLabel('Endpoint URL').fill(PUBLIC_HOOK);
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const shown = page.locator('#new-secret-value');
    await shown.waitFor();
    const secret = (await shown.textContent())!.trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await expect(page.getByText('it will not be shown again').isVisible()).resolves.toBe(true);
    await browser.focusIsOn(page, 'new-secret-title');
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(secret);

    await page.reload();
    expect(await page.content()).not.toContain(secret);
    await page.getByRole('button', { name: `Delete the webhook to ${PUBLIC_HOOK}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByText('is deleted').waitFor();
    expect((await api.request('GET', '/v1/webhooks', { key: user.key })).body.data).toEqual([]);
    await page.close();
  });

  it('filters the audit log, keeping the filter in the address', async () => {
    const user = await accountWithUser(api);
    await api.request('GET', '/v1/usage', { key: user.key });
    await api.request('GET', '/v1/keys', { key: user.key });
    const page = await newPage();
    await signIn(page, user);
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.waitForURL('**/dashboard/audit');
    await page.getByLabel('Path starts with').fill('/v1/usage');
    await page.getByLabel('Path starts with').press('Enter');
    await page.waitForURL(/path=%2Fv1%2Fusage/);
    await expect(page.locator('#audit-rows tbody tr').count()).resolves.toBe(1);
    await expect(page.locator('#audit-rows tbody td').nth(2).textContent()).resolves.toBe('/v1/usage');
    await page.reload();
    await expect(page.getByLabel('Path starts with').inputValue()).resolves.toBe('/v1/usage');
    await page.close();
  });

  it('fits a 375 px wide phone screen without horizontal scrolling on every new page; wide tables scroll in their own box', async () => {
    const user = await accountWithUser(api);
    const hooks = await accountWithUser(api);
    await api.request('POST', '/v1/webhooks', { key: hooks.key, body: { url: PUBLIC_HOOK } });
    const page = await newPage(PHONE);
    await signIn(page, user);
    await page.goto(`${api.baseUrl}/dashboard/screen`);
    expect(await fits(page)).toBe(true);
    await screenInConsole(page, LISTED);
    await page.locator('#flag-1 > summary').click();
    expect(await fits(page)).toBe(true);
    await page.goto(`${api.baseUrl}/dashboard/screenings`);
    expect(await fits(page)).toBe(true);
    await page.goto(`${api.baseUrl}/dashboard/audit`);
    expect(await fits(page)).toBe(true);
    await expect(
      page.evaluate(`getComputedStyle(document.querySelector('.table-scroll')).overflowX`),
    ).resolves.toBe('auto');

    await browser.clearCookies();
    await signIn(page, hooks);
    await page.goto(`${api.baseUrl}/dashboard/webhooks`);
    expect(await fits(page)).toBe(true);
    await page.getByRole('link', { name: /^Deliveries of the webhook/ }).click();
    await page.waitForURL('**/dashboard/webhooks/*');
    expect(await fits(page)).toBe(true);
    await page.close();
  });

  it('reported no Content-Security-Policy violation on any page', () => {
    expect(browser.violations).toEqual([]);
  });
});
