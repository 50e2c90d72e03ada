import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_PAGE_ROWS } from '../../src/dashboard/audit-routes.js';
import { backends } from '../support/backends.js';
import { accountWithUser, DashboardClient } from '../support/dashboard-client.js';
import { FakeClock } from '../support/fake-clock.js';
import { TestApp } from '../support/test-app.js';

interface Row {
  time: string;
  method: string;
  path: string;
  status: string;
  by: string;
  requestId: string;
}

/** The audit page's rows, as text. */
function rowsOf(html: string): Row[] {
  const table = /<table class="data" id="audit-rows">[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
  return [...table.matchAll(/<tr>\s*(<td[\s\S]*?)<\/tr>/g)].map((m) => {
    const cells = [...m[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) =>
      c[1]!.replace(/<[^>]+>/g, '').trim(),
    );
    const [time, method, path, status, by, requestId] = cells as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    return { time, method, path, status, by, requestId };
  });
}

const olderLink = (html: string) =>
  /<a href="([^"]+)" rel="next" id="older">/.exec(html)?.[1]?.replace(/&amp;/g, '&');

describe.each(backends())('dashboard audit log ($name)', (backend) => {
  let api: TestApp;
  const clock = new FakeClock('2026-11-16T09:00:00Z');
  beforeAll(async () => {
    api = await TestApp.start(backend, { clock });
  });
  afterAll(async () => api?.close());

  async function signedIn() {
    const user = await accountWithUser(api);
    const browser = new DashboardClient(api.baseUrl);
    expect((await browser.signIn(user.email, user.password)).status).toBe(303);
    return { user, browser };
  }

  it('filters by path prefix, status class or code and time range, keeping the filters in the URL', async () => {
    const { user, browser } = await signedIn();
    const other = await api.createAccount('professional');
    clock.set('2026-11-16T10:00:00Z');
    await api.request('GET', '/v1/usage', { key: user.key });
    await api.request('GET', '/v1/usage', { key: other.key });
    clock.set('2026-11-16T11:00:00Z');
    await api.request('GET', '/v1/screen/00000000-0000-4000-8000-000000000000', { key: user.key });
    await api.request('GET', '/v1/screen/00000000-0000-4000-8000-000000000000', { key: other.key });
    clock.set('2026-11-16T12:00:00Z');
    await api.request('GET', '/v1/webhooks', { key: user.key });
    clock.set('2026-11-16T13:00:00Z');

    const byPath = await browser.get('/dashboard/audit?path=%2Fv1%2Fusage');
    expect(byPath.status).toBe(200);
    const usageRows = rowsOf(byPath.body);
    expect(usageRows).toHaveLength(1);
    expect(usageRows[0]).toMatchObject({ method: 'GET', path: '/v1/usage', status: '200' });
    expect(usageRows[0]!.by).toBe(`cs_live_…${user.key.slice(-4)}`);
    expect(byPath.body).toContain('id="audit-path" name="path" value="/v1/usage"');

    const clientErrors = rowsOf((await browser.get('/dashboard/audit?status=4xx&path=%2Fv1')).body);
    expect(clientErrors.map((r) => [r.path, r.status])).toEqual([
      ['/v1/screen/00000000-0000-4000-8000-000000000000', '404'],
    ]);
    expect(rowsOf((await browser.get('/dashboard/audit?status=404')).body)).toHaveLength(1);
    expect(
      rowsOf((await browser.get('/dashboard/audit?status=2xx&path=%2Fv1')).body).map((r) => r.path),
    ).toEqual(['/v1/webhooks', '/v1/usage']);

    const range = await browser.get(
      '/dashboard/audit?from=2026-11-16T10%3A30&to=2026-11-16T11%3A30&path=%2Fv1',
    );
    expect(rowsOf(range.body).map((r) => r.path)).toEqual([
      '/v1/screen/00000000-0000-4000-8000-000000000000',
    ]);
    expect(range.body).toContain('value="2026-11-16T10:30"');

    // The dashboard's own requests are there, by the signed-in user's email.
    const dashboardRows = rowsOf((await browser.get('/dashboard/audit?path=%2Fdashboard%2Faudit')).body);
    expect(dashboardRows.length).toBeGreaterThan(0);
    expect(dashboardRows.every((r) => r.by === user.email)).toBe(true);
  });

  it('never shows rows of another account', async () => {
    const { user, browser } = await signedIn();
    const other = await api.createAccount('professional');
    expect((await api.request('GET', '/v1/usage', { key: other.key })).status).toBe(200);
    await api.request('GET', '/v1/keys', { key: user.key });
    const page = await browser.get('/dashboard/audit');
    const rows = rowsOf(page.body);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => r.by.endsWith(other.key.slice(-4)) && r.by.startsWith('cs_live'))).toBe(false);
    const theirIds = new Set(
      (await api.request('GET', '/v1/audit', { key: other.key })).body.data.map(
        (r: { request_id: string }) => r.request_id,
      ),
    );
    expect(theirIds.size).toBeGreaterThan(0);
    expect(rows.some((r) => theirIds.has(r.requestId))).toBe(false);
  });

  it('pages newest first, 50 rows at a time, with the filters kept on the next page', async () => {
    clock.set('2026-11-17T09:00:00Z');
    const { user, browser } = await signedIn();
    for (let i = 0; i < AUDIT_PAGE_ROWS + 7; i++) {
      clock.advance(1_000);
      expect(
        (
          await api.request('GET', `/v1/screen/00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, {
            key: user.key,
          })
        ).status,
      ).toBe(404);
    }
    await api.request('GET', '/v1/usage', { key: user.key });
    const first = await browser.get('/dashboard/audit?status=404');
    const firstRows = rowsOf(first.body);
    expect(firstRows).toHaveLength(AUDIT_PAGE_ROWS);
    expect(firstRows[0]!.path).toBe(
      `/v1/screen/00000000-0000-4000-8000-${String(AUDIT_PAGE_ROWS + 6).padStart(12, '0')}`,
    );
    const next = olderLink(first.body)!;
    expect(next).toMatch(/^\/dashboard\/audit\?status=404&cursor=/);
    const second = await browser.get(next);
    const secondRows = rowsOf(second.body);
    expect(secondRows.map((r) => r.path)).toEqual(
      Array.from(
        { length: 7 },
        (_, i) => `/v1/screen/00000000-0000-4000-8000-${String(6 - i).padStart(12, '0')}`,
      ),
    );
    expect(olderLink(second.body)).toBeUndefined();
    expect(second.body).toMatch(/<a href="\/dashboard\/audit\?status=404">Newest<\/a>/);
  });

  it('shows a malformed filter as a form error rather than a failure', async () => {
    const { browser } = await signedIn();
    const page = await browser.get('/dashboard/audit?status=abc&from=yesterday&path=v1');
    expect(page.status).toBe(422);
    expect(page.body).toMatch(/id="audit-status-error" class="field-error">Enter a status such as 404/);
    expect(page.body).toMatch(/id="audit-from-error" class="field-error">Enter a date and time/);
    expect(page.body).toMatch(/id="audit-path-error" class="field-error">A path starts with \//);
    expect(page.body).toMatch(/<title>Audit log/);
  });
});
