import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { appInChromium, describeInChromium, LAPTOP, PHONE } from '../support/browser.js';
import { accountWithUser } from '../support/dashboard-client.js';

describeInChromium('the dashboard in Chromium', () => {
  const started = appInChromium();

  const newPage = (viewport = LAPTOP) => started.browser.newPage(viewport);

  const signIn = (page: Page, user: { email: string; password: string }) =>
    started.browser.signIn(page, user);

  it('signs in with the keyboard alone, with a visible focus indicator', async () => {
    const user = await accountWithUser(started.api);
    const page = await newPage();
    await page.goto(`${started.api.baseUrl}/dashboard/sign-in`);
    // The email field has focus on arrival; Tab moves on, Enter submits.
    await started.browser.focusIsOn(page, 'email');
    await page.keyboard.type(user.email);
    await page.keyboard.press('Tab');
    const outline = await page.evaluate('getComputedStyle(document.activeElement).outlineStyle');
    expect(outline).not.toBe('none');
    await page.keyboard.type(user.password);
    await page.keyboard.press('Enter');
    await page.waitForURL('**/dashboard/keys');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('API keys');
    await page.close();
  });

  it('creates a key, shows it once with a copy button that copies it, and never again', async () => {
    const user = await accountWithUser(started.api);
    const page = await newPage();
    await signIn(page, user);
    await page.getByLabel('Name').fill('payments backend');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.locator('#new-key-value');
    await shown.waitFor();
    const key = (await shown.textContent())!.trim();
    expect(key).toMatch(/^cs_live_[0-9A-Za-z]{32}$/);
    await expect(page.getByText('it will not be shown again').isVisible()).resolves.toBe(true);
    // Focus moved to the new key's heading (htmx swapped the panel in).
    await started.browser.focusIsOn(page, 'new-key-title');
    const copy = page.getByRole('button', { name: 'Copy key' });
    await expect(copy.isVisible()).resolves.toBe(true);
    await copy.click();
    await page.getByText('Copied to the clipboard.').waitFor();
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(key);
    expect((await started.api.request('GET', '/v1/usage', { key })).status).toBe(200);

    await page.reload();
    expect(await page.content()).not.toContain(key);
    await expect(page.getByText(`cs_live_…${key.slice(-4)}`).isVisible()).resolves.toBe(true);
    await page.close();
  });

  it('revokes a key only after confirming in a dialog, and the API refuses it', async () => {
    const user = await accountWithUser(started.api);
    const page = await newPage();
    await signIn(page, user);
    const revoke = page.getByRole('button', { name: /^Revoke key default/ });
    await revoke.click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await expect(dialog.textContent()).resolves.toMatch(/Requests with it are refused within a second/);
    await page.keyboard.press('Escape');
    await expect(dialog.isVisible()).resolves.toBe(false);
    expect((await started.api.request('GET', '/v1/usage', { key: user.key })).status).toBe(200);

    await revoke.click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('is revoked').waitFor();
    await expect(page.locator('.status-revoked').count()).resolves.toBe(1);
    expect((await started.api.request('GET', '/v1/usage', { key: user.key })).status).toBe(403);
    await page.close();
  });

  it('shows the usage figures and a bar chart of screenings per day', async () => {
    const user = await accountWithUser(started.api, 'starter');
    const today = new Date();
    for (let i = 0; i < 3; i++) {
      await started.api.runtime.ctx.db
        .insertInto('screenings')
        .values({
          id: randomUUID(),
          account_id: user.accountId,
          key_id: user.keyId,
          entity: 'Test Name',
          query_type: 'entity',
          request_options: '{}',
          result: '{}',
          source_errors: '[]',
          source_versions: '{}',
          risk_score: 0,
          risk_level: 'low',
          created_at: today,
        })
        .execute();
    }
    const month = today.toISOString().slice(0, 7);
    await started.api.runtime.ctx.db
      .insertInto('usage_counters')
      .values({ account_id: user.accountId, month: `${month}-01`, count: 3 })
      .execute();
    const page = await newPage();
    await signIn(page, user);
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.waitForURL('**/dashboard/usage');
    await expect(page.locator('#usage-used').textContent()).resolves.toBe('3 of 500');
    await expect(page.locator('#usage-remaining').textContent()).resolves.toBe('497');
    const bars = page.locator(`#chart-${month} rect.bar`);
    const todayBar = bars.nth(today.getUTCDate() - 1);
    await expect(todayBar.getAttribute('data-count')).resolves.toBe('3');
    const box = await todayBar.boundingBox();
    expect(box!.height).toBeGreaterThan(10);
    await expect(page.getByRole('img', { name: /3 screenings stored/ }).count()).resolves.toBe(1);
    await page.close();
  });

  it('fits a 375 px wide phone screen without horizontal scrolling on every page', async () => {
    const user = await accountWithUser(started.api);
    const page = await newPage(PHONE);
    const fits = () =>
      page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth');
    await page.goto(`${started.api.baseUrl}/dashboard/sign-in`);
    expect(await fits()).toBe(true);
    await signIn(page, user);
    await page.getByLabel('Name').fill('a key with a rather long descriptive name for the phone');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-key-value').waitFor();
    expect(await fits()).toBe(true);
    await page.goto(`${started.api.baseUrl}/dashboard/usage`);
    expect(await fits()).toBe(true);
    await page.close();
  });

  it('reported no Content-Security-Policy violation on any page', () => {
    expect(started.browser.violations).toEqual([]);
  });
});
