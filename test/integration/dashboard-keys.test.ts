import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLANS } from '../../src/accounts/plans.js';
import { backends } from '../support/backends.js';
import { accountWithUser, alertText, DashboardClient, fullKeysIn } from '../support/dashboard-client.js';
import { FakeClock } from '../support/fake-clock.js';
import { TestApp } from '../support/test-app.js';

describe.each(backends())('dashboard API keys and usage ($name)', (backend) => {
  let api: TestApp;
  const clock = new FakeClock('2026-11-16T09:00:00Z');
  beforeAll(async () => {
    api = await TestApp.start(backend, { clock });
  });
  afterAll(async () => api?.close());

  async function signedIn(plan: 'starter' | 'professional' | 'enterprise' = 'professional') {
    const user = await accountWithUser(api, plan);
    const browser = new DashboardClient(api.baseUrl);
    expect((await browser.signIn(user.email, user.password)).status).toBe(303);
    await browser.get('/dashboard/keys');
    return { user, browser };
  }

  it('shows a key created in the dashboard in full exactly once, and the key works on the API', async () => {
    const { user, browser } = await signedIn();
    const created = await browser.post('/dashboard/keys', { _csrf: browser.csrf, name: 'payments backend' });
    expect(created.status).toBe(201);
    const [key] = fullKeysIn(created.body);
    expect(fullKeysIn(created.body)).toHaveLength(1);
    expect(created.body).toMatch(/will not be shown again/);
    expect(created.body).toMatch(/data-copy="new-key-value"/);
    expect((await api.request('GET', '/v1/usage', { key: key! })).status).toBe(200);

    const later = await browser.get('/dashboard/keys');
    expect(fullKeysIn(later.body)).toEqual([]);
    expect(later.body).toContain(`cs_live_…${key!.slice(-4)}`);
    expect(later.body).toContain('payments backend');
    const listed = await api.request('GET', '/v1/keys', { key: user.key });
    expect(listed.body.data.map((k: { name: string }) => k.name)).toContain('payments backend');
  });

  it('answers an htmx request (CSRF token in the header) with the keys panel only', async () => {
    const { browser } = await signedIn();
    const created = await browser.post(
      '/dashboard/keys',
      { name: 'from htmx' },
      { 'hx-request': 'true', 'x-csrf-token': browser.csrf },
    );
    expect(created.status).toBe(201);
    expect(created.body.startsWith('<div id="keys-panel">')).toBe(true);
    expect(created.body).not.toMatch(/<html/);
    expect(fullKeysIn(created.body)).toHaveLength(1);
  });

  it('shows a key name as text, never as markup', async () => {
    const { browser } = await signedIn();
    const name = '<img src=x onerror="alert(1)">"\'&';
    const created = await browser.post('/dashboard/keys', { _csrf: browser.csrf, name });
    expect(created.status).toBe(201);
    expect(created.body).not.toContain('<img src=x');
    expect(created.body).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&quot;&#39;&amp;');
  });

  it('refuses an empty key name with the reason, creating nothing', async () => {
    const { user, browser } = await signedIn();
    const refused = await browser.post('/dashboard/keys', { _csrf: browser.csrf, name: '   ' });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatch(/Give the key a name/);
    expect((await api.request('GET', '/v1/keys', { key: user.key })).body.data).toHaveLength(1);
  });

  it('explains on the form that the account has as many active keys as it may, creating nothing', async () => {
    const { user, browser } = await signedIn();
    for (let i = 1; i < PLANS.professional.activeKeysMax; i++)
      expect((await api.request('POST', '/v1/keys', { key: user.key, body: { name: `k${i}` } })).status).toBe(
        201,
      );
    const refused = await browser.post('/dashboard/keys', { _csrf: browser.csrf, name: 'one too many' });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatch(/at most \d+ active API keys/);
    expect(fullKeysIn(refused.body)).toEqual([]);
  });

  it('asks for confirmation before revoking, and a key revoked in the dashboard is refused by the API within a second', async () => {
    const { user, browser } = await signedIn();
    const unconfirmed = await browser.post(`/dashboard/keys/${user.keyId}/revoke`, { _csrf: browser.csrf });
    expect(unconfirmed.status).toBe(200);
    expect(unconfirmed.body).toMatch(/Revoke the key “default”\?/);
    expect((await api.request('GET', '/v1/usage', { key: user.key })).status).toBe(200);

    const revoked = await browser.post(`/dashboard/keys/${user.keyId}/revoke`, {
      _csrf: browser.csrf,
      confirm: 'yes',
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatch(/is revoked/);
    const started = Date.now();
    let status = 0;
    while (Date.now() - started < 1_000) {
      status = (await api.request('GET', '/v1/usage', { key: user.key })).status;
      if (status === 403) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe(403);
    expect((await browser.get('/dashboard/keys')).body).toMatch(/status-revoked/);
  });

  it("answers 404 for another account's key (or an unknown one) and leaves it working", async () => {
    const { browser } = await signedIn();
    const theirs = await api.createAccount();
    for (const id of [theirs.keyId, randomUUID(), 'not-a-uuid']) {
      for (const confirm of ['yes', '']) {
        const refused = await browser.post(`/dashboard/keys/${id}/revoke`, { _csrf: browser.csrf, confirm });
        expect(refused.status).toBe(404);
        expect(alertText(refused.body)).toMatch(/another account/);
      }
    }
    expect((await api.request('GET', '/v1/usage', { key: theirs.key })).status).toBe(200);
  });

  it('shows the plan, used / limit, remaining, reset date and a bar per day of this month and the last', async () => {
    const { user, browser } = await signedIn('starter');
    const db = api.runtime.ctx.db;
    const store = (createdAt: string) =>
      db
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
          created_at: createdAt,
        })
        .execute();
    for (const at of [
      '2026-11-02T10:00:00Z',
      '2026-11-02T11:00:00Z',
      '2026-11-02T23:59:00Z',
      '2026-11-15T08:00:00Z',
    ])
      await store(at);
    for (const at of ['2026-10-31T23:00:00Z', '2026-10-01T00:00:00Z']) await store(at);
    await store('2026-09-30T12:00:00Z'); // before last month: not shown
    await db
      .insertInto('usage_counters')
      .values({ account_id: user.accountId, month: '2026-11-01', count: 7 })
      .execute();

    const page = await browser.get('/dashboard/usage');
    expect(page.status).toBe(200);
    expect(page.body).toMatch(/id="usage-plan">Starter</);
    expect(page.body).toMatch(/id="usage-used">7 of 500</);
    expect(page.body).toMatch(/id="usage-remaining">493</);
    expect(page.body).toMatch(/1 December 2026/);
    const november = /<svg[^>]*id="chart-2026-11"[\s\S]*?<\/svg>/.exec(page.body)![0];
    const october = /<svg[^>]*id="chart-2026-10"[\s\S]*?<\/svg>/.exec(page.body)![0];
    const counts = (svg: string) => [...svg.matchAll(/data-count="(\d+)"/g)].map((m) => Number(m[1]));
    expect(counts(november)).toHaveLength(30);
    expect(counts(october)).toHaveLength(31);
    expect(counts(november)[1]).toBe(3);
    expect(counts(november)[14]).toBe(1);
    expect(counts(october)[0]).toBe(1);
    expect(counts(october)[30]).toBe(1);
    expect(counts(november).reduce((a, b) => a + b)).toBe(4);
    expect(page.body).toMatch(/November 2026<\/strong>: 4 screenings/);
    expect(page.body).toMatch(/October 2026<\/strong>: 2 screenings/);
  });

  it('sends a signed-out visitor to the sign-in page, and htmx requests there by HX-Redirect', async () => {
    const stranger = new DashboardClient(api.baseUrl);
    for (const path of ['/dashboard/keys', '/dashboard/usage', '/dashboard']) {
      const page = await stranger.get(path);
      expect(page.status).toBe(303);
      expect(page.location).toBe('/dashboard/sign-in');
    }
    const htmx = await stranger.post('/dashboard/keys', { name: 'x' }, { 'hx-request': 'true' });
    expect(htmx.status).toBe(401);
    expect(htmx.headers.get('hx-redirect')).toBe('/dashboard/sign-in');
  });
});
