import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { backends } from '../support/backends.js';
import { DashboardBrowser, describeInChromium, LAPTOP, PHONE } from '../support/browser.js';
import { accountWithUser } from '../support/dashboard-client.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

/** Two individuals of the UN list fixture. */
const LISTED = 'Gaston Iyamuremye';
const OTHER_LISTED = 'Eric Badege';

describeInChromium("the dashboard's review queue and screening history in Chromium", () => {
  let api: TestApp;
  let browser: DashboardBrowser;

  beforeAll(async () => {
    api = await TestApp.start(backends()[0]!, {
      env: { LISTS_DIR: FIXTURE_LISTS_DIR, LISTS_ENABLED: 'un_sc' },
    });
    await api.runtime.ctx.lists.settled();
    browser = await DashboardBrowser.launch(api.baseUrl);
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  const screen = async (key: string, body: Record<string, unknown>) => {
    const response = await api.request('POST', '/v1/screen', { key, body: { type: 'person', ...body } });
    expect(response.status).toBe(200);
    return response.body;
  };

  async function signedIn(user: { email: string; password: string }): Promise<Page> {
    const page = await browser.newPage(LAPTOP);
    await browser.signIn(page, user);
    return page;
  }

  it('clears a flag from the review queue with a note in one step, and the next screening reports it', async () => {
    const user = await accountWithUser(api);
    const first = await screen(user.key, { query: LISTED, reference: 'cust-7', date_of_birth: '1990' });
    expect(first.risk_level).not.toBe('low');
    await screen(user.key, { query: 'Jane Unlisted Person', reference: 'cust-8' });

    const page = await signedIn(user);
    await page.getByRole('link', { name: 'Review' }).click();
    await page.waitForURL('**/dashboard/review');
    await page.setViewportSize(PHONE);
    await expect(
      page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth'),
    ).resolves.toBe(true);
    await page.setViewportSize(LAPTOP);
    const items = page.locator('#review-queue > li');
    await expect(items.count()).resolves.toBe(1);
    const item = items.first();
    await expect(item.getByRole('heading').textContent()).resolves.toContain('gaston iyamuremye');
    await expect(item.getByText('(ref. cust-7)').isVisible()).resolves.toBe(true);
    await expect(item.locator('.listed-name').textContent()).resolves.toMatch(/IYAMUREMYE/i);
    // The birth date given is compared with the record's: the queue says whether it agrees.
    await expect(
      item
        .getByText(/(matches|contradicts) the record/)
        .first()
        .isVisible(),
    ).resolves.toBe(true);

    // A decision without a note is refused on its row, and nothing is recorded.
    await item.getByRole('button', { name: 'False positive' }).click();
    expect(page.url()).toMatch(/\/dashboard\/review$/);
    await expect((await api.request('GET', '/v1/decisions', { key: user.key })).body.data).toEqual([]);

    // Spaces alone pass the browser's check, not the service's: the row says why.
    await item.getByLabel(/^Note on/).fill('   ');
    await item.getByRole('button', { name: 'False positive' }).click();
    await page.getByRole('alert').filter({ hasText: 'The decision was not recorded' }).waitFor();
    await expect(items.first().locator('.field-error').textContent()).resolves.toMatch(/^The note must hold/);
    await expect((await api.request('GET', '/v1/decisions', { key: user.key })).body.data).toEqual([]);

    await item.getByLabel(/^Note on/).fill('Our customer is a student born in 1990.');
    await item.getByRole('button', { name: 'False positive' }).click();
    await page.locator('#review-notice').waitFor();
    await expect(page.locator('#queue-empty').isVisible()).resolves.toBe(true);

    const decisions = await api.request('GET', '/v1/decisions?reference=cust-7', { key: user.key });
    expect(decisions.body.data).toEqual([
      expect.objectContaining({
        decision: 'false_positive',
        note: 'Our customer is a student born in 1990.',
        decided_by: { type: 'dashboard_user', id: user.userId },
      }),
    ]);
    const again = await screen(user.key, { query: LISTED, reference: 'cust-7', date_of_birth: '1990' });
    expect(again.risk_level).toBe('low');
    expect(again.flags[0].decision.value).toBe('false_positive');

    // The screening's page shows the flag as decided, including on the screening made before it.
    await page.goto(`${api.baseUrl}/dashboard/screenings/${first.id}`);
    await expect(page.locator('#flags td.decision').first().textContent()).resolves.toMatch(
      /^False positive \(since this screening\): Our customer is a student/,
    );
    await page.goto(`${api.baseUrl}/dashboard/screenings/${again.id}`);
    await expect(page.locator('#flags td.decision').first().textContent()).resolves.toMatch(
      /^False positive: /,
    );
    await page.close();
  });

  it("confirms a true match from a screening's page", async () => {
    const user = await accountWithUser(api);
    const first = await screen(user.key, { query: OTHER_LISTED, reference: 'cust-9' });
    const page = await signedIn(user);
    await page.goto(`${api.baseUrl}/dashboard/screenings/${first.id}`);
    await page.locator('#flag-1 > summary').click();
    await page
      .locator('#flag-1')
      .getByLabel(/^Note on/)
      .fill('Same passport number.');
    await page.locator('#flag-1').getByRole('button', { name: 'True match' }).click();
    await page.locator('#decision-notice').waitFor();
    await expect(page.locator('#flags td.decision').first().textContent()).resolves.toMatch(/^True match/);
    const again = await screen(user.key, { query: OTHER_LISTED, reference: 'cust-9' });
    expect(again.risk_score).toBe(first.risk_score);
    expect(again.flags[0].decision.value).toBe('true_match');
    await page.close();
  });

  it('searches the screening history by name, reference, risk level and date', async () => {
    const user = await accountWithUser(api);
    await screen(user.key, { query: LISTED, reference: 'alpha-1' });
    await screen(user.key, { query: 'Jane Unlisted Person', reference: 'beta-2' });
    await screen(user.key, { query: OTHER_LISTED });
    const page = await signedIn(user);
    await page.getByRole('link', { name: 'Screenings' }).click();
    await page.waitForURL('**/dashboard/screenings');
    const rows = page.locator('#screenings tbody tr');
    await expect(rows.count()).resolves.toBe(3);

    await page.getByLabel('Reference').fill('beta-2');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL('**/dashboard/screenings?*');
    await expect(rows.count()).resolves.toBe(1);
    await expect(rows.first().textContent()).resolves.toContain('jane unlisted person');

    await page.getByLabel('Reference').fill('');
    await page.getByLabel('Name').fill('BADEGE');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL('**name=BADEGE*');
    await expect(rows.count()).resolves.toBe(1);
    await expect(rows.first().textContent()).resolves.toContain('eric badege');

    await page.getByLabel('Name').fill('');
    await page.getByLabel('Risk').selectOption('low');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL('**risk=low*');
    await expect(rows.count()).resolves.toBe(1);
    await expect(rows.first().textContent()).resolves.toContain('beta-2');

    await page.getByLabel('Risk').selectOption('');
    await page.getByLabel('From').fill('2001-01-01');
    await page.getByLabel('To').fill('2001-12-31');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL('**from=2001-01-01*');
    await expect(page.locator('#no-screenings').textContent()).resolves.toContain(
      'No screening matches this search.',
    );
    await page.close();
  });

  it('breaks no content security policy rule on these pages', () => {
    expect(browser.violations).toEqual([]);
  });
});
