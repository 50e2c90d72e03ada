import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DASHBOARD_SESSION_IDLE_MS,
  SIGN_IN_ATTEMPTS_PER_IP_MAX,
  SIGN_IN_ATTEMPTS_PER_IP_WINDOW_SECONDS,
  SIGN_IN_FAILURES_MAX,
} from '../../src/accounts/dashboard-sessions.js';
import { SIGN_IN_FAILED_MESSAGE } from '../../src/dashboard/sign-in-routes.js';
import { backends } from '../support/backends.js';
import { accountWithUser, alertText, DashboardClient } from '../support/dashboard-client.js';
import { FakeClock } from '../support/fake-clock.js';
import { TestApp } from '../support/test-app.js';

describe.each(backends())('dashboard sign-in and sessions ($name)', (backend) => {
  let api: TestApp;
  const clock = new FakeClock('2026-11-16T09:00:00Z');
  beforeAll(async () => {
    // Behind a trusted proxy, so tests can act as clients at other addresses and over HTTPS.
    api = await TestApp.start(backend, { clock, app: { trustProxy: true } });
  });
  afterAll(async () => api?.close());

  const client = (ip = '198.51.100.7', extra: Record<string, string> = {}) =>
    new DashboardClient(api.baseUrl, { 'x-forwarded-for': ip, ...extra });

  it('signs in with the right password into a server-side session held in an HttpOnly, SameSite=Lax cookie', async () => {
    const user = await accountWithUser(api);
    const browser = client();
    const signedIn = await browser.signIn(user.email.toUpperCase(), user.password);
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe('/dashboard/keys');
    const cookie = browser.cookieAttributes('css_session')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/dashboard(;|$)/);
    expect(cookie).not.toMatch(/Secure/);
    const keys = await browser.get('/dashboard/keys');
    expect(keys.status).toBe(200);
    expect(keys.body).toContain(user.email);
    // Only the token's SHA-256 is stored.
    const token = browser.cookies.get('css_session')!.value;
    const rows = await api.runtime.ctx.db.selectFrom('dashboard_sessions').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('marks the session cookie Secure when the request came over HTTPS through a trusted proxy', async () => {
    const user = await accountWithUser(api);
    const browser = client('198.51.100.8', { 'x-forwarded-proto': 'https' });
    expect((await browser.signIn(user.email, user.password)).status).toBe(303);
    expect(browser.cookieAttributes('css_session')).toMatch(/; Secure/);
  });

  it('answers an unknown email and a wrong password with the same status and message', async () => {
    const user = await accountWithUser(api);
    const wrongPassword = await client('198.51.100.9').signIn(user.email, 'not the password at all');
    const unknownEmail = await client('198.51.100.9').signIn('nobody@example.com', user.password);
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    expect(alertText(wrongPassword.body)).toBe(SIGN_IN_FAILED_MESSAGE);
    expect(alertText(unknownEmail.body)).toBe(SIGN_IN_FAILED_MESSAGE);
  });

  it('locks out an email from an address after 5 failures in 15 minutes, even with the right password, but not from another address', async () => {
    const user = await accountWithUser(api);
    for (let i = 0; i < SIGN_IN_FAILURES_MAX; i++) {
      expect((await client('203.0.113.10').signIn(user.email, `wrong password ${i}`)).status).toBe(401);
    }
    const locked = await client('203.0.113.10').signIn(user.email, user.password);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(alertText(locked.body)).toMatch(/Too many failed sign-ins/);
    expect((await client('203.0.113.11').signIn(user.email, user.password)).status).toBe(303);
  });

  it('locks out an unknown email exactly like a known one, so the lockout reveals nothing', async () => {
    for (let i = 0; i < SIGN_IN_FAILURES_MAX; i++) {
      expect((await client('203.0.113.20').signIn('ghost@example.com', 'wrong password!')).status).toBe(401);
    }
    expect((await client('203.0.113.20').signIn('ghost@example.com', 'wrong password!')).status).toBe(429);
  });

  it('refuses every sign-in from an address after 30 failed attempts in 15 minutes (any emails), even with the right password, but not from another address', async () => {
    const user = await accountWithUser(api);
    const flood = '192.0.2.77';
    // Successful sign-ins do not count: were they counted, the flood below would be refused early.
    for (let i = 0; i < 3; i++)
      expect((await client(flood).signIn(user.email, user.password)).status).toBe(303);
    // A different email each time, so the per-(email, address) lockout never starts: only the
    // per-address limit can refuse. Six at a time, as a flood would come.
    for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_IP_MAX; i += 6) {
      const statuses = await Promise.all(
        Array.from({ length: Math.min(6, SIGN_IN_ATTEMPTS_PER_IP_MAX - i) }, async (_, j) => {
          const page = await client(flood).signIn(`flood-${i + j}@example.com`, 'wrong password!');
          return page.status;
        }),
      );
      expect(statuses.every((status) => status === 401)).toBe(true);
    }
    const refused = client(flood);
    const locked = await refused.signIn(user.email, user.password);
    expect(locked.status).toBe(429);
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(SIGN_IN_ATTEMPTS_PER_IP_WINDOW_SECONDS);
    expect(alertText(locked.body)).toMatch(/Too many sign-in attempts from your network/);
    expect(refused.cookies.has('css_session')).toBe(false);
    expect((await client('192.0.2.78').signIn(user.email, user.password)).status).toBe(303);
  });

  it('checks at most 5 passwords for an email from an address, however many guesses arrive at once', async () => {
    const user = await accountWithUser(api);
    const burst = await Promise.all(
      Array.from({ length: 24 }, async (_, i) => {
        const page = await client('203.0.113.30').signIn(user.email, `wrong password ${i}`);
        return page.status;
      }),
    );
    expect(burst.filter((status) => status === 401)).toHaveLength(SIGN_IN_FAILURES_MAX);
    expect(burst.filter((status) => status === 429)).toHaveLength(24 - SIGN_IN_FAILURES_MAX);
    expect((await client('203.0.113.30').signIn(user.email, user.password)).status).toBe(429);
  });

  it('checks at most 30 passwords from an address, however many guesses for other emails arrive at once', async () => {
    const flood = '192.0.2.90';
    const guesses = SIGN_IN_ATTEMPTS_PER_IP_MAX + 15;
    const burst = await Promise.all(
      Array.from({ length: guesses }, async (_, i) => {
        const page = await client(flood).signIn(`burst-${i}@example.com`, 'wrong password!');
        return page.status;
      }),
    );
    expect(burst.filter((status) => status === 401)).toHaveLength(SIGN_IN_ATTEMPTS_PER_IP_MAX);
    expect(burst.filter((status) => status === 429)).toHaveLength(guesses - SIGN_IN_ATTEMPTS_PER_IP_MAX);
  });

  it('ends a session after 12 hours without a request, while each request restarts the 12 hours', async () => {
    const user = await accountWithUser(api);
    const browser = client('198.51.100.12');
    await browser.signIn(user.email, user.password);
    clock.advance(DASHBOARD_SESSION_IDLE_MS - 60_000);
    expect((await browser.get('/dashboard/keys')).status).toBe(200);
    clock.advance(DASHBOARD_SESSION_IDLE_MS - 60_000);
    expect((await browser.get('/dashboard/usage')).status).toBe(200);
    clock.advance(DASHBOARD_SESSION_IDLE_MS);
    const expired = await browser.get('/dashboard/keys');
    expect(expired.status).toBe(303);
    expect(expired.location).toBe('/dashboard/sign-in');
    expect(browser.cookies.has('css_session')).toBe(false);
  });

  it('signs out: the session ends on the server, so the old cookie no longer works', async () => {
    const user = await accountWithUser(api);
    const browser = client('198.51.100.13');
    await browser.signIn(user.email, user.password);
    const stolen = new DashboardClient(api.baseUrl);
    stolen.cookies.set('css_session', browser.cookies.get('css_session')!);
    await browser.get('/dashboard/keys');
    const out = await browser.post('/dashboard/sign-out', { _csrf: browser.csrf });
    expect(out.status).toBe(303);
    expect(out.location).toBe('/dashboard/sign-in');
    expect((await stolen.get('/dashboard/keys')).status).toBe(303);
  });

  it('refuses state-changing requests without the session’s CSRF token or with a wrong one (403), and changes nothing', async () => {
    const user = await accountWithUser(api);
    const browser = client('198.51.100.14');
    await browser.signIn(user.email, user.password);
    await browser.get('/dashboard/keys');
    const missing = await browser.post('/dashboard/keys', { name: 'no token' });
    const wrong = await browser.post('/dashboard/keys', { name: 'wrong token', _csrf: `${browser.csrf}x` });
    const wrongHeader = await browser.post(
      '/dashboard/keys',
      { name: 'bad header' },
      { 'x-csrf-token': 'nope' },
    );
    const crossSite = await browser.post(
      '/dashboard/keys',
      { name: 'cross site', _csrf: browser.csrf },
      { 'sec-fetch-site': 'cross-site' },
    );
    const signOut = await browser.post('/dashboard/sign-out', {});
    for (const refused of [missing, wrong, wrongHeader, crossSite, signOut]) expect(refused.status).toBe(403);
    const keys = await api.request('GET', '/v1/keys', { key: user.key });
    expect(keys.body.data).toHaveLength(1);
    expect((await browser.get('/dashboard/keys')).status).toBe(200);
  });

  it('refuses a sign-in form posted without its own token (login CSRF) and offers a fresh form', async () => {
    const user = await accountWithUser(api);
    const browser = client('198.51.100.15');
    const forged = await browser.post('/dashboard/sign-in', { email: user.email, password: user.password });
    expect(forged.status).toBe(403);
    expect(browser.cookies.has('css_session')).toBe(false);
    expect((await browser.post('/dashboard/sign-in', { _csrf: browser.csrf, ...user })).status).toBe(303);
  });

  it("refuses a suspended account's users and ends their sessions", async () => {
    const user = await accountWithUser(api);
    const browser = client('198.51.100.16');
    await browser.signIn(user.email, user.password);
    await api.admin('PATCH', `/admin/v1/accounts/${user.accountId}`, { status: 'suspended' });
    expect((await browser.get('/dashboard/keys')).status).toBe(303);
    const again = client('198.51.100.16');
    expect((await again.signIn(user.email, user.password)).status).toBe(401);
    expect(again.cookies.has('css_session')).toBe(false);
  });

  it("tells nothing of a suspended user's password: the right one is answered and counted like a wrong one", async () => {
    const user = await accountWithUser(api);
    await api.admin('PATCH', `/admin/v1/accounts/${user.accountId}`, { status: 'suspended' });
    const address = '198.51.100.18';
    const right = await client(address).signIn(user.email, user.password);
    const wrong = await client(address).signIn(user.email, 'not the password at all');
    for (const page of [right, wrong]) {
      expect(page.status).toBe(401);
      expect(alertText(page.body)).toBe(SIGN_IN_FAILED_MESSAGE);
    }
    expect(alertText(right.body)).not.toMatch(/suspend/i);
    // The right password does not clear the failures either: the lockout comes as early with it.
    for (let i = 2; i < SIGN_IN_FAILURES_MAX; i++) {
      const guess = i % 2 === 0 ? user.password : `wrong password ${i}`;
      expect((await client(address).signIn(user.email, guess)).status).toBe(401);
    }
    expect((await client(address).signIn(user.email, user.password)).status).toBe(429);
  });

  it("ends a suspended account's sessions for good: the old cookie does not work once it is resumed", async () => {
    const user = await accountWithUser(api);
    const browser = client('198.51.100.19');
    await browser.signIn(user.email, user.password);
    const kept = new DashboardClient(api.baseUrl);
    kept.cookies.set('css_session', browser.cookies.get('css_session')!);
    expect((await kept.get('/dashboard/keys')).status).toBe(200);
    await api.admin('PATCH', `/admin/v1/accounts/${user.accountId}`, { status: 'suspended' });
    await api.admin('PATCH', `/admin/v1/accounts/${user.accountId}`, { status: 'active' });
    const old = await kept.get('/dashboard/keys');
    expect(old.status).toBe(303);
    expect(old.location).toBe('/dashboard/sign-in');
    expect((await client('198.51.100.19').signIn(user.email, user.password)).status).toBe(303);
  });

  it('sends the security headers on every dashboard response, and no-store on pages', async () => {
    const user = await accountWithUser(api);
    const browser = client('198.51.100.17');
    const signInPage = await browser.get('/dashboard/sign-in');
    await browser.signIn(user.email, user.password);
    const pages = [signInPage];
    for (const path of [
      '/dashboard/keys',
      '/dashboard/usage',
      '/dashboard/screen',
      '/dashboard/screenings',
      '/dashboard/webhooks',
      '/dashboard/audit',
      '/dashboard/audit?status=4xx&path=%2Fv1',
    ]) {
      const page = await browser.get(path);
      expect(page.status, path).toBe(200);
      pages.push(page);
    }
    const notFound = await browser.get('/dashboard/nowhere');
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get('content-type')).toMatch(/^text\/html/);
    const stylesheet = await browser.get('/dashboard/assets/dashboard.css');
    for (const page of [...pages, notFound, stylesheet]) {
      const csp = page.headers.get('content-security-policy')!;
      expect(csp).toMatch(/script-src 'self'/);
      expect(csp).toMatch(/frame-ancestors 'none'/);
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('referrer-policy')).toBe('same-origin');
    }
    for (const page of pages) expect(page.headers.get('cache-control')).toBe('no-store');
    for (const page of pages)
      expect(page.body).not.toMatch(/<script>|<script(?![^>]*\bsrc=)[^>]*>| on[a-z]+="/);
  });

  it('serves htmx from the process, not a CDN', async () => {
    const htmx = await fetch(`${api.baseUrl}/dashboard/assets/vendor/htmx.min.js`);
    expect(htmx.status).toBe(200);
    expect(htmx.headers.get('content-type')).toMatch(/javascript/);
    expect(await htmx.text()).toMatch(/htmx/);
    expect((await fetch(`${api.baseUrl}/dashboard/assets/vendor/htmx.js`)).status).toBe(404);
  });

  it("audits dashboard requests in the user's account chain, with the user", async () => {
    const user = await accountWithUser(api);
    const browser = client('198.51.100.18');
    await browser.signIn(user.email, user.password);
    await browser.get('/dashboard/keys');
    await api.runtime.ctx.audit.flush();
    const audit = await api.request('GET', '/v1/audit?path=/dashboard', { key: user.key });
    const rows = audit.body.data.map((r: any) => `${r.method} ${r.path} ${r.status} ${r.user_id}`);
    expect(rows).toContain(`GET /dashboard/keys 200 ${user.userId}`);
    expect(rows).toContain(`POST /dashboard/sign-in 303 ${user.userId}`);
    const verified = await api.admin('POST', `/admin/v1/audit/verify?account=${user.accountId}`);
    expect(verified.body.ok).toBe(true);
  });

  it('leaves the API as it was: dashboard routes are not in the OpenAPI document, /v1 errors stay problem+json', async () => {
    const doc = (await (await fetch(`${api.baseUrl}/v1/openapi.json`)).json()) as { paths: object };
    expect(Object.keys(doc.paths).filter((p) => p === '/' || p.startsWith('/dashboard'))).toEqual([]);
    const urlencoded = await fetch(`${api.baseUrl}/v1/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=x',
    });
    expect(urlencoded.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const root = await fetch(`${api.baseUrl}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/dashboard');
  });
});
