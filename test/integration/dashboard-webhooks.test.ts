import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOKS_PER_ACCOUNT_MAX } from '../../src/webhooks/webhook-policy.js';
import { backends } from '../support/backends.js';
import { accountWithUser, alertText, DashboardClient } from '../support/dashboard-client.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhooks-receiver.js';

const LISTS_DIR = FIXTURE_LISTS_DIR;
/** The delivery receiver is on 127.0.0.1 over http: only these escape hatches let the service reach it. */
const LOCAL_RECEIVERS = {
  LISTS_DIR,
  LISTS_ENABLED: 'uk_fcdo',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_ALLOW_HTTP: 'true',
};
/**
 * A public address literal: registration resolves nothing and connects to nothing. Accounts with
 * such a webhook never screen, so nothing is ever delivered to it.
 */
const PUBLIC = 'https://93.184.215.14/hooks';
const SECRET = /whsec_[A-Za-z0-9+/]{43}=/g;

function fieldError(html: string, id: string): string | undefined {
  return new RegExp(`<p id="${id}" class="field-error">([^<]*)</p>`).exec(html)?.[1];
}

describe.each(backends())('dashboard webhooks ($name)', (backend) => {
  /** The default SSRF policy: https only, public addresses only. */
  let api: TestApp;
  /**
   * Lets webhooks reach a receiver on 127.0.0.1 over http, for the delivery log. On PostgreSQL it
   * has a schema of its own: every instance on a database claims its deliveries, and one with the
   * default policy (`api`, any other test file's) would refuse the local receiver and record a
   * failure before this one sends it.
   */
  let local: TestApp;
  let dropLocal: () => Promise<void> = async () => {};
  beforeAll(async () => {
    const isolated = await isolatedBackend(backend);
    dropLocal = isolated.drop;
    [api, local] = await Promise.all([
      TestApp.start(backend),
      TestApp.start(isolated.backend, { env: LOCAL_RECEIVERS }),
    ]);
    await local.runtime.ctx.lists.settled();
  });
  afterAll(async () => {
    await Promise.all([api?.close(), local?.close()]);
    await dropLocal();
  });

  async function signedIn(app: TestApp, plan: 'starter' | 'professional' | 'enterprise' = 'professional') {
    const user = await accountWithUser(app, plan);
    const browser = new DashboardClient(app.baseUrl);
    expect((await browser.signIn(user.email, user.password)).status).toBe(303);
    await browser.get('/dashboard/webhooks');
    return { user, browser };
  }

  it('shows a webhook secret added in the dashboard exactly once, and the API lists the webhook', async () => {
    const { user, browser } = await signedIn(api);
    const created = await browser.post('/dashboard/webhooks', {
      _csrf: browser.csrf,
      url: PUBLIC,
      events: 'screening.complete',
    });
    expect(created.status).toBe(201);
    const secrets = created.body.match(SECRET) ?? [];
    expect(secrets).toHaveLength(1);
    expect(created.body).toMatch(/it will not be shown again/);
    expect(created.body).toMatch(/data-copy="new-secret-value"/);

    const listed = await api.request('GET', '/v1/webhooks', { key: user.key });
    expect(listed.body.data).toMatchObject([
      { url: PUBLIC, events: ['screening.complete'], status: 'active' },
    ]);
    const later = await browser.get('/dashboard/webhooks');
    expect(later.body.match(SECRET)).toBeNull();
    expect(later.body).toContain(PUBLIC);
    expect(later.body).toMatch(/status-active">Active/);
  });

  it('subscribes to both events when both boxes are ticked, and answers htmx with the panel only', async () => {
    const { user, browser } = await signedIn(api);
    const body = new URLSearchParams([
      ['url', PUBLIC],
      ['events', 'screening.complete'],
      ['events', 'batch.complete'],
    ]);
    const created = await fetch(`${api.baseUrl}/dashboard/webhooks`, {
      method: 'POST',
      body: body.toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: browser.cookieHeader('/dashboard/webhooks'),
        'hx-request': 'true',
        'x-csrf-token': browser.csrf,
      },
    });
    expect(created.status).toBe(201);
    const html = await created.text();
    expect(html.startsWith('<div id="webhooks-panel">')).toBe(true);
    const listed = await api.request('GET', '/v1/webhooks', { key: user.key });
    expect(listed.body.data[0].events).toEqual(['screening.complete', 'batch.complete']);
  });

  it('shows a refused registration (not https, a private address, no event, too many) as a form error with the reason', async () => {
    const { user, browser } = await signedIn(api);
    const post = (url: string, events: string | null = 'screening.complete') =>
      browser.post('/dashboard/webhooks', { _csrf: browser.csrf, url, ...(events ? { events } : {}) });

    const plain = await post('http://93.184.215.14/hooks');
    expect(plain.status).toBe(422);
    expect(fieldError(plain.body, 'webhook-url-error')).toMatch(/must use https/);
    expect(plain.body).toContain('value="http://93.184.215.14/hooks"');

    const loopback = await post('https://127.0.0.1/hooks');
    expect(loopback.status).toBe(422);
    expect(fieldError(loopback.body, 'webhook-url-error')).toMatch(/loopback/);

    const noEvent = await post(PUBLIC, null);
    expect(noEvent.status).toBe(422);
    expect(fieldError(noEvent.body, 'webhook-events-error')).toMatch(/at least one event/);
    expect((await api.request('GET', '/v1/webhooks', { key: user.key })).body.data).toEqual([]);

    for (let i = 0; i < WEBHOOKS_PER_ACCOUNT_MAX; i++)
      expect((await post(`${PUBLIC}/${i}`)).status).toBe(201);
    const tooMany = await post(`${PUBLIC}/one-more`);
    expect(tooMany.status).toBe(422);
    expect(tooMany.body).toMatch(new RegExp(`at most ${WEBHOOKS_PER_ACCOUNT_MAX} webhooks`));
    expect(tooMany.body).toMatch(/<title>Webhooks/);
    const listed = await api.request('GET', '/v1/webhooks', { key: user.key });
    expect(listed.body.data).toHaveLength(WEBHOOKS_PER_ACCOUNT_MAX);
  });

  it('deletes a webhook only with the session’s CSRF token and after confirmation, and the API no longer lists it', async () => {
    const { user, browser } = await signedIn(api);
    const created = await api.request('POST', '/v1/webhooks', { key: user.key, body: { url: PUBLIC } });
    const id = created.body.id as string;
    await browser.get('/dashboard/webhooks');

    const forged = await browser.post(`/dashboard/webhooks/${id}/delete`, { confirm: 'yes' });
    expect(forged.status).toBe(403);
    const wrongToken = await browser.post(`/dashboard/webhooks/${id}/delete`, {
      _csrf: 'x'.repeat(43),
      confirm: 'yes',
    });
    expect(wrongToken.status).toBe(403);
    expect((await api.request('GET', '/v1/webhooks', { key: user.key })).body.data).toHaveLength(1);

    const unconfirmed = await browser.post(`/dashboard/webhooks/${id}/delete`, { _csrf: browser.csrf });
    expect(unconfirmed.status).toBe(200);
    expect(unconfirmed.body).toMatch(/Delete the webhook\?/);
    expect(unconfirmed.body).toContain(PUBLIC);
    expect((await api.request('GET', '/v1/webhooks', { key: user.key })).body.data).toHaveLength(1);

    const deleted = await browser.post(`/dashboard/webhooks/${id}/delete`, {
      _csrf: browser.csrf,
      confirm: 'yes',
    });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatch(/is deleted/);
    expect((await api.request('GET', '/v1/webhooks', { key: user.key })).body.data).toEqual([]);
  });

  it("answers 404 for another account's webhook (its deliveries and its deletion) and leaves it in place", async () => {
    const { browser } = await signedIn(api);
    const theirs = await api.createAccount('professional');
    const created = await api.request('POST', '/v1/webhooks', { key: theirs.key, body: { url: PUBLIC } });
    const id = created.body.id as string;
    expect((await browser.get(`/dashboard/webhooks/${id}`)).status).toBe(404);
    for (const confirm of ['yes', '']) {
      const refused = await browser.post(`/dashboard/webhooks/${id}/delete`, {
        _csrf: browser.csrf,
        confirm,
      });
      expect(refused.status).toBe(404);
      expect(alertText(refused.body)).toMatch(/another account/);
    }
    expect((await browser.get('/dashboard/webhooks/not-a-uuid')).status).toBe(404);
    expect((await api.request('GET', '/v1/webhooks', { key: theirs.key })).body.data).toHaveLength(1);
  });

  it('tells a Starter account that webhooks need Professional or Enterprise, offers no form, and refuses a hand-made post', async () => {
    const { user, browser } = await signedIn(api, 'starter');
    const page = await browser.get('/dashboard/webhooks');
    expect(page.status).toBe(200);
    expect(page.body).toMatch(/available on the Professional and Enterprise plans/);
    expect(page.body).not.toMatch(/action="\/dashboard\/webhooks"/);
    const posted = await browser.post('/dashboard/webhooks', {
      _csrf: browser.csrf,
      url: PUBLIC,
      events: 'screening.complete',
    });
    expect(posted.status).toBe(403);
    expect(posted.body.match(SECRET)).toBeNull();
    expect((await api.request('POST', '/v1/webhooks', { key: user.key, body: { url: PUBLIC } })).status).toBe(
      403,
    );
    const rows = await api.runtime.ctx.db
      .selectFrom('webhooks')
      .select('id')
      .where('account_id', '=', user.accountId)
      .execute();
    expect(rows).toEqual([]);
  });

  it("sends a console screening to the account's webhooks, and lists the delivery attempts: event, status code, duration, error (a short, escaped excerpt), attempt and next retry", async () => {
    const hostile = `<img src=x onerror=alert(1)>\u202e receiver down ${'A'.repeat(5_000)} TAIL-NOT-SHOWN`;
    const receiver = await WebhookReceiver.start({ status: 500, body: hostile });
    try {
      const { user, browser } = await signedIn(local);
      const created = await browser.post('/dashboard/webhooks', {
        _csrf: browser.csrf,
        url: receiver.url,
        events: 'screening.complete',
      });
      expect(created.status).toBe(201);
      const [webhook] = (await local.request('GET', '/v1/webhooks', { key: user.key })).body.data;
      const empty = await browser.get(`/dashboard/webhooks/${webhook.id}`);
      expect(empty.body).toMatch(/No delivery has been attempted yet/);

      await browser.get('/dashboard/screen');
      const screened = await browser.post('/dashboard/screen', {
        _csrf: browser.csrf,
        query: 'BNK UK Limited',
      });
      expect(screened.status).toBe(303);
      const [delivered] = await receiver.waitFor(1);
      expect(JSON.parse(delivered!.body.toString('utf8'))).toMatchObject({ event: 'screening.complete' });
      await local.runtime.webhookDelivery.settle();

      const page = await browser.get(`/dashboard/webhooks/${webhook.id}`);
      expect(page.status).toBe(200);
      const table = /<table class="data" id="attempts">[\s\S]*?<\/table>/.exec(page.body)![0];
      const cells = [...table.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((m) =>
        m[1]!.replace(/<[^>]+>/g, '').trim(),
      );
      expect(cells[1]).toBe('screening.complete');
      expect(cells[2]).toBe('1');
      expect(cells[3]).toBe('500');
      expect(cells[4]).toMatch(/^\d[\d,]* ms$/);
      expect(cells[5]).toMatch(/^HTTP 500: &lt;img src=x onerror=alert\(1\)&gt; receiver down A+…$/);
      expect(cells[5]!.length).toBeLessThan(150);
      expect(page.body).not.toContain('<img src=x');
      expect(page.body).not.toContain('TAIL-NOT-SHOWN');
      expect(cells[6]).toMatch(/UTC/);
      expect(cells[7]).toBe('pending');

      const list = await browser.get('/dashboard/webhooks');
      expect(list.body).toMatch(/data-label="Failures in a row">1</);
      expect(list.body).not.toMatch(/data-label="Last delivery">Never/);
    } finally {
      await receiver.close();
    }
  });
});
