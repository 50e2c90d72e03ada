import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../support/backends.js';
import { accountWithUser, alertText, DashboardClient } from '../support/dashboard-client.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

/** A name on the small UK sanctions list fixture: its screening has a flag to decide on. */
const LISTED = 'BNK UK Limited';

// PostgreSQL's text cannot hold U+0000: the API refuses such a value with a 422, and the dashboard
// must too, naming the field, instead of failing its statement with a 500.
describe.each(backends())('dashboard fields with a NUL character ($name)', (backend) => {
  let api: TestApp;
  let user: Awaited<ReturnType<typeof accountWithUser>>;
  let browser: DashboardClient;

  beforeAll(async () => {
    api = await TestApp.start(backend, { env: { LISTS_DIR: FIXTURE_LISTS_DIR, LISTS_ENABLED: 'uk_fcdo' } });
    await api.runtime.ctx.lists.settled();
    user = await accountWithUser(api, 'professional');
    browser = new DashboardClient(api.baseUrl);
    expect((await browser.signIn(user.email, user.password)).status).toBe(303);
    await browser.get('/dashboard/keys');
  });
  afterAll(async () => api?.close());

  const refusedNaming = (page: { status: number; body: string }, field: string) => {
    expect(page.status, page.body.slice(0, 500)).toBe(422);
    expect(alertText(page.body)).toMatch(new RegExp(`field “${field}” contains a NUL character`));
  };

  it('answers a NUL in a key name, a monitor name, a decision note or an alert note with a 422 naming the field', async () => {
    const screened = await api.request('POST', '/v1/screen', { key: user.key, body: { query: LISTED } });
    const flag = screened.body.flags[0];
    const decisionPath = `/dashboard/screenings/${screened.body.id}/flags/${encodeURIComponent(flag.id)}/decision`;
    const keysBefore = (await api.request('GET', '/v1/keys', { key: user.key })).body.data.length;

    refusedNaming(
      await browser.post('/dashboard/keys', { _csrf: browser.csrf, name: 'payments\u0000' }),
      'name',
    );
    refusedNaming(
      await browser.post('/dashboard/monitors', {
        _csrf: browser.csrf,
        type: 'person',
        query: 'Jo\u0000hn Smith',
      }),
      'query',
    );
    refusedNaming(
      await browser.post(decisionPath, {
        _csrf: browser.csrf,
        decision: 'false_positive',
        note: 'checked\u0000',
      }),
      'note',
    );
    refusedNaming(
      await browser.post(`/dashboard/alerts/${randomUUID()}/close`, {
        _csrf: browser.csrf,
        note: 'seen\u0000',
      }),
      'note',
    );
    // Nothing was made meanwhile.
    expect((await api.request('GET', '/v1/keys', { key: user.key })).body.data).toHaveLength(keysBefore);
    expect((await api.request('GET', '/v1/monitors', { key: user.key })).body.data).toEqual([]);
    expect((await api.request('GET', '/v1/decisions', { key: user.key })).body.data).toEqual([]);
  });

  it('leaves a NUL in an imported CSV to the import, which names its line', async () => {
    const page = await browser.post('/dashboard/monitors/import', {
      _csrf: browser.csrf,
      csv: 'query,type\nJo\u0000hn Smith,person\n',
    });
    expect(page.status).toBe(422);
    expect(page.body).toContain(
      '<li><strong>Line 2</strong>: <code>query</code> must not hold a NUL character</li>',
    );
    expect(page.body).not.toMatch(/field “csv”/);
  });

  it('answers a NUL in a filter with a 422 naming it', async () => {
    refusedNaming(await browser.get('/dashboard/monitors?reference=%00'), 'reference');
    refusedNaming(await browser.get('/dashboard/screenings?reference=a%00b'), 'reference');
  });

  it('answers htmx with the message as text for its flash, and the sign-in form on its own page', async () => {
    const htmx = await browser.post(
      '/dashboard/keys',
      { _csrf: browser.csrf, name: '\u0000' },
      { 'hx-request': 'true' },
    );
    // A 422 would be swapped into the form as its panel: a 400's text is shown as the page's flash.
    expect(htmx.status).toBe(400);
    expect(htmx.body).toMatch(/field “name” contains a NUL character/);
    const visitor = new DashboardClient(api.baseUrl);
    refusedNaming(await visitor.signIn(`a\u0000${user.email}`, user.password), 'email');
  });
});
