import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_FORM_BODY_LIMIT_BYTES } from '../../src/dashboard/monitor-import-form.js';
import { ALERT_NOTE_MAX_CHARS } from '../../src/screening/monitoring/monitoring-policy.js';
import { type Backend, backends } from '../support/backends.js';
import { accountWithUser, DashboardClient } from '../support/dashboard-client.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { ListServer } from '../support/list-server.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

const UN_XML = readFileSync(path.join(FIXTURE_LISTS_DIR, 'consolidated.xml'), 'utf8');
const GASTON = 'Gaston Iyamuremye';
const BADEGE = 'Eric Badege';
const GASTON_RECORD = /\s*<INDIVIDUAL>\s*<DATAID>6907995<\/DATAID>[\s\S]*?<\/INDIVIDUAL>/;
const WITHOUT_GASTON = UN_XML.replace(GASTON_RECORD, '');

/** The names in the monitors table, in order. */
function monitorNames(html: string): string[] {
  return [...html.matchAll(/<th scope="row" data-label="Name">([^<]*)<\/th>/g)].map((m) => m[1]!);
}

/** The ids of the alerts in the inbox, in order. */
function alertIds(html: string): string[] {
  return [...html.matchAll(/<li class="review-item" id="alert-([0-9a-f-]{36})"/g)].map((m) => m[1]!);
}

describe.each(backends())('dashboard monitors and alerts ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let server: ListServer;
  let api: TestApp;

  /** Serves a new version of the UN list, has it refreshed, and lets the monitor run finish. */
  const publish = async (xml: string) => {
    server.serve('/un/consolidated.xml', { body: xml });
    const refreshed = await api.admin('POST', '/admin/v1/lists/un_sc/refresh');
    expect(refreshed.body.outcome).toBe('accepted');
    await api.runtime.monitorRuns.settle();
  };

  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
    server = await ListServer.start();
    api = await TestApp.start(backend, {
      env: {
        LISTS_ENABLED: 'un_sc',
        LIST_URL_UN_SC: server.url('/un/consolidated.xml'),
        LISTS_REFRESH_INTERVAL_MINUTES: '0',
      },
    });
    await publish(WITHOUT_GASTON);
  }, 180_000);
  afterAll(async () => {
    await api?.close();
    await server?.close();
    await drop?.();
  });

  async function signedIn(plan: 'starter' | 'professional' | 'enterprise' = 'professional') {
    const user = await accountWithUser(api, plan);
    const browser = new DashboardClient(api.baseUrl);
    expect((await browser.signIn(user.email, user.password)).status).toBe(303);
    const page = await browser.get('/dashboard/monitors');
    expect(page.status).toBe(200);
    return { user, browser, page };
  }

  const add = (browser: DashboardClient, form: Record<string, string>) =>
    browser.post('/dashboard/monitors', { _csrf: browser.csrf, type: 'person', ...form });

  it('adds a monitor with its first screening linked, lists monitors newest first, finds one by reference, and deletes after confirming', async () => {
    const { user, browser, page } = await signedIn();
    expect(page.body).toContain('This account monitors no one yet.');
    expect(page.body).toMatch(/<a href="\/dashboard\/monitors" aria-current="page">Monitors<\/a>/);

    const badege = await add(browser, { query: BADEGE, reference: 'customer-2', countries: 'CD' });
    expect(badege.status).toBe(201);
    expect(badege.body).toContain(`Now monitoring “${BADEGE}”`);
    const monitors = await api.request('GET', '/v1/monitors', { key: user.key });
    expect(monitors.body.data).toMatchObject([
      { query: BADEGE, type: 'person', reference: 'customer-2', countries: ['CD'] },
    ]);
    // The first screening is the account's ordinary screening, counted, and linked from the page.
    const first = await api.runtime.ctx.db
      .selectFrom('screenings')
      .select('id')
      .where('account_id', '=', user.accountId)
      .executeTakeFirstOrThrow();
    expect(badege.body).toContain(`href="/dashboard/screenings/${first.id}"`);
    expect(badege.body).toMatch(/First screening: <span class="risk risk-\w+">/);
    const usage = await api.request('GET', '/v1/usage', { key: user.key });
    expect(usage.body.current_month.count).toBe(1);

    const gaston = await add(browser, { query: GASTON, type: 'entity', reference: 'customer-1' });
    expect(gaston.status).toBe(201);
    expect(monitorNames((await browser.get('/dashboard/monitors')).body)).toEqual([GASTON, BADEGE]);

    const found = await browser.get('/dashboard/monitors?reference=customer-2');
    expect(monitorNames(found.body)).toEqual([BADEGE]);
    const none = await browser.get('/dashboard/monitors?reference=customer');
    expect(monitorNames(none.body)).toEqual([]);
    expect(none.body).toContain('No monitor has this reference.');

    const id = monitors.body.data[0].id as string;
    // Without JavaScript the delete button asks first, on a page of its own.
    const asked = await browser.post(`/dashboard/monitors/${id}/delete`, { _csrf: browser.csrf });
    expect(asked.status).toBe(200);
    expect(asked.body).toContain(`Stop monitoring “${BADEGE}”?`);
    expect((await api.request('GET', `/v1/monitors/${id}`, { key: user.key })).status).toBe(200);

    const other = await signedIn('enterprise');
    const foreign = await other.browser.post(`/dashboard/monitors/${id}/delete`, {
      _csrf: other.browser.csrf,
      confirm: 'yes',
    });
    expect(foreign.status).toBe(404);

    const deleted = await browser.post(`/dashboard/monitors/${id}/delete`, {
      _csrf: browser.csrf,
      confirm: 'yes',
    });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toContain(`“${BADEGE}” is no longer monitored.`);
    expect(monitorNames(deleted.body)).toEqual([GASTON]);
    expect((await api.request('GET', `/v1/monitors/${id}`, { key: user.key })).status).toBe(404);
  });

  it('pages the monitors with the cursor, keeping the reference searched for', async () => {
    const { user, browser } = await signedIn();
    await sql`INSERT INTO monitors (id, account_id, key_id, reference, subject_key, entity, query_type, request, created_at)
      SELECT gen_random_uuid(), ${user.accountId}, ${user.keyId}, 'many', 'query:x', 'x', 'person',
        jsonb_build_object('query', 'Party ' || lpad(i::text, 2, '0'), 'type', 'person'),
        now() - make_interval(mins => i)
      FROM generate_series(1, 30) AS i`.execute(api.runtime.ctx.db);
    const first = await browser.get('/dashboard/monitors?reference=many');
    expect(monitorNames(first.body)).toHaveLength(25);
    expect(monitorNames(first.body)[0]).toBe('Party 01');
    const next = /href="(\/dashboard\/monitors\?before=[^"]+)" rel="next"/.exec(first.body)?.[1];
    expect(next).toContain('reference=many');
    const second = await browser.get(next!.replaceAll('&amp;', '&'));
    expect(monitorNames(second.body)).toEqual(['Party 26', 'Party 27', 'Party 28', 'Party 29', 'Party 30']);
    expect(second.body).not.toContain('rel="next"');
  });

  it('shows Starter accounts that monitoring needs another plan instead of the form, and the plan limit as a form error', async () => {
    const starter = await signedIn('starter');
    expect(starter.page.body).toContain(
      'Ongoing monitoring is available on the Professional and Enterprise plans.',
    );
    expect(starter.page.body).not.toContain('action="/dashboard/monitors" hx-post');
    const refused = await add(starter.browser, { query: GASTON });
    expect(refused.status).toBe(403);
    expect(refused.body).toContain(
      'Ongoing monitoring is available on the Professional and Enterprise plans.',
    );

    const full = await signedIn('professional');
    await sql`INSERT INTO monitors (id, account_id, subject_key, entity, query_type, request, created_at)
      SELECT gen_random_uuid(), ${full.user.accountId}, 'query:x', 'x', 'person', '{}'::jsonb, now()
      FROM generate_series(1, 10000)`.execute(api.runtime.ctx.db);
    const over = await add(full.browser, { query: GASTON });
    expect(over.status).toBe(402);
    expect(over.body).toMatch(
      /<p class="alert" role="alert" id="monitor-error"[^>]*>The account already has 10000 monitors, the most its plan allows; delete one first.<\/p>/,
    );
    expect(over.body).toContain(`value="${GASTON}"`);
    const usage = await api.request('GET', '/v1/usage', { key: full.user.key });
    expect(usage.body.current_month.count).toBe(0);

    const invalid = await add(full.browser, { query: '', date_of_birth: 'tomorrow' });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toContain(
      '<p id="monitor-query-error" class="field-error">Enter the name to monitor.</p>',
    );
  });

  it('shows an alert a list change raised in the inbox, and closes it with a required note', async () => {
    const { user, browser } = await signedIn();
    expect((await add(browser, { query: GASTON, reference: 'customer-9' })).status).toBe(201);
    const empty = await browser.get('/dashboard/alerts');
    expect(empty.body).toContain('No alert is waiting for you.');

    await publish(UN_XML);
    const [alert] = (await api.request('GET', '/v1/alerts', { key: user.key })).body.data;
    expect(alert).toMatchObject({ reason: 'new_match', reference: 'customer-9', status: 'open' });
    const inbox = await browser.get('/dashboard/alerts');
    expect(inbox.status).toBe(200);
    expect(alertIds(inbox.body)).toEqual([alert.id]);
    expect(inbox.body).toContain(`${GASTON} <span class="status status-open">Open</span>`);
    expect(inbox.body).toContain('<dd class="alert-reason">New match</dd>');
    expect(inbox.body).toContain(
      `version <code class="list-version">${alert.list_version.slice(0, 12)}</code>`,
    );
    expect(inbox.body).toMatch(/<dd class="listed-name">[^<]*IYAMUREMYE[^<]*\(score \d\.\d\d\)<\/dd>/i);
    expect(inbox.body).toContain(`href="/dashboard/screenings/${alert.screening_id}"`);
    const screening = await browser.get(`/dashboard/screenings/${alert.screening_id}`);
    expect(screening.status).toBe(200);

    const blank = await browser.post(`/dashboard/alerts/${alert.id}/close`, {
      _csrf: browser.csrf,
      note: '  ',
    });
    expect(blank.status).toBe(422);
    expect(blank.body).toContain('The alert was not closed: Write what you found');
    const long = await browser.post(`/dashboard/alerts/${alert.id}/close`, {
      _csrf: browser.csrf,
      note: 'x'.repeat(ALERT_NOTE_MAX_CHARS + 1),
    });
    expect(long.status).toBe(422);
    expect((await api.request('GET', '/v1/alerts?status=open', { key: user.key })).body.data).toHaveLength(1);

    const other = await signedIn('enterprise');
    const foreign = await other.browser.post(`/dashboard/alerts/${alert.id}/close`, {
      _csrf: other.browser.csrf,
      note: 'not mine',
    });
    expect(foreign.status).toBe(404);

    const closed = await browser.post(`/dashboard/alerts/${alert.id}/close`, {
      _csrf: browser.csrf,
      status: 'open',
      note: 'Same name, other person: born 1970 <checked>',
    });
    expect(closed.status).toBe(303);
    expect(closed.location).toBe('/dashboard/alerts?status=open&closed=yes');
    const after = await browser.get(closed.location!);
    expect(alertIds(after.body)).toEqual([]);
    expect(after.body).toContain('The alert is closed with your note.');
    const closedList = await browser.get('/dashboard/alerts?status=closed');
    expect(alertIds(closedList.body)).toEqual([alert.id]);
    expect(closedList.body).toContain('<span class="status status-closed">Closed</span>');
    // The note as typed, escaped.
    expect(closedList.body).toContain(
      '<dd class="alert-note">Same name, other person: born 1970 &lt;checked&gt;</dd>',
    );
    expect(closedList.body).not.toContain('action="/dashboard/alerts/');
    const listed = await api.request('GET', '/v1/alerts?status=closed', { key: user.key });
    expect(listed.body.data[0]).toMatchObject({
      id: alert.id,
      note: 'Same name, other person: born 1970 <checked>',
    });
  });

  const importCsv = (browser: DashboardClient, csv: string, headers: Record<string, string> = {}) =>
    browser.post('/dashboard/monitors/import', { _csrf: browser.csrf, csv }, headers);

  it('imports a CSV: the progress shown, the monitors pending, then active and counted once screened', async () => {
    const { user, browser, page } = await signedIn();
    expect(page.body).toContain('action="/dashboard/monitors/import"');
    expect(page.body).toMatch(/<input id="import-file" type="file" accept="\.csv,text\/csv"/);

    const imported = await importCsv(
      browser,
      `query,type,reference,date_of_birth,countries\r\n${BADEGE},person,cust-1,,CD\r\n${GASTON},person,cust-2,,\r\n`,
    );
    expect(imported.status).toBe(201);
    expect(imported.body).toMatch(/<h2 id="import-progress-title"[^>]*>Importing 2 parties<\/h2>/);
    const importId = /hx-get="\/dashboard\/monitors\/imports\/([0-9a-f-]{36})" hx-trigger="every 2s"/.exec(
      imported.body,
    )?.[1];
    expect(importId).toBeDefined();
    expect(imported.body).toContain(`<a href="/dashboard/monitors/imports/${importId}">Refresh</a>`);
    expect(monitorNames(imported.body)).toEqual(expect.arrayContaining([BADEGE, GASTON]));
    expect(imported.body).toContain('<span class="status status-pending">Pending</span>');

    await api.runtime.firstScreenings.settle();
    // htmx's poll gets the finished progress and, out of band, the list with the statuses.
    const polled = await browser.get(`/dashboard/monitors/imports/${importId}`, { 'hx-request': 'true' });
    expect(polled.status).toBe(200);
    expect(polled.body).toContain(
      '<h2 id="import-progress-title" hx-swap-oob="innerHTML">Imported 2 parties</h2>',
    );
    expect(polled.body).toContain('2 of 2 screened and watched.');
    expect(polled.body).not.toContain('hx-trigger="every 2s"');
    expect(polled.body).toContain(
      '<section id="monitors-list" aria-labelledby="monitors-title" hx-swap-oob="true">',
    );
    const listed = await browser.get('/dashboard/monitors');
    expect(monitorNames(listed.body).sort()).toEqual([BADEGE, GASTON].sort());
    expect(listed.body).not.toContain('status-pending');
    const monitors = (await api.request('GET', '/v1/monitors', { key: user.key })).body.data;
    expect(monitors.map((m: { status: string }) => m.status)).toEqual(['active', 'active']);
    for (const monitor of monitors) {
      expect(listed.body).toContain(`href="/dashboard/screenings/${monitor.first_screening_id}"`);
    }
    const usage = await api.request('GET', '/v1/usage', { key: user.key });
    expect(usage.body.current_month.count).toBe(2);

    // Without JavaScript, the refresh link shows the whole page with the progress.
    const refreshed = await browser.get(`/dashboard/monitors/imports/${importId}`);
    expect(refreshed.body).toContain('<h1>Monitors</h1>');
    expect(refreshed.body).toMatch(/<h2 id="import-progress-title">Imported 2 parties<\/h2>/);
    expect(refreshed.body).toContain('Done: every party is watched');
    const other = await signedIn('enterprise');
    expect((await other.browser.get(`/dashboard/monitors/imports/${importId}`)).status).toBe(404);

    // A first screening refused (here: as if the quota had run out) shows as failed, and why.
    await sql`UPDATE monitors SET first_screened_at = NULL, first_screening_id = NULL,
      first_screening_error = 'quota-exceeded' WHERE id = ${monitors[0].id}`.execute(api.runtime.ctx.db);
    const failed = await browser.get('/dashboard/monitors');
    expect(failed.body).toContain(
      '<span class="status status-failed">Failed</span> <span class="hint">not watched: Monthly screening quota exhausted</span>',
    );
  });

  it('refuses a CSV with bad rows whole, naming each line, and keeps the text to fix', async () => {
    const { user, browser } = await signedIn();
    // A blank line is skipped, but counted: the lines named are the file's.
    const csv = `query,type,date_of_birth\n${BADEGE},person,\n\nX,person,\n${GASTON},robot,tomorrow\n`;
    const refused = await importCsv(browser, csv);
    expect(refused.status).toBe(422);
    expect(refused.body).toContain('2 of the 3 rows are not valid; nothing was imported.');
    expect(refused.body).toMatch(/<li><strong>Line 4<\/strong>: <code>query<\/code> [^<]+<\/li>/);
    expect(refused.body).toMatch(
      /<li><strong>Line 5<\/strong>: <code>type<\/code> must be one of [^;]+; <code>date_of_birth<\/code> [^<]+<\/li>/,
    );
    expect(refused.body).not.toContain('<strong>Line 2</strong>');
    expect(refused.body).not.toContain('<strong>Line 3</strong>');
    expect(refused.body).not.toContain('{"pointer"');
    expect(refused.body).toContain(`${GASTON},robot,tomorrow`);
    expect((await api.request('GET', '/v1/monitors', { key: user.key })).body.data).toEqual([]);

    const empty = await importCsv(browser, '  ');
    expect(empty.status).toBe(422);
    expect(empty.body).toContain('Choose a CSV file, or paste its rows with the header row first.');
    const header = await importCsv(browser, 'name\nX\n');
    expect(header.status).toBe(422);
    expect(header.body).toContain('<p id="import-csv-error" class="field-error">Unknown columns: name.</p>');

    const starter = await signedIn('starter');
    const plan = await importCsv(starter.browser, `query\n${GASTON}\n`);
    expect(plan.status).toBe(403);
    expect(plan.body).toContain('Ongoing monitoring is available on the Professional and Enterprise plans.');
  });

  it('takes an import form up to its own body limit, larger than the other forms', async () => {
    const { browser } = await signedIn();
    const rows = Array.from({ length: 2_000 }, (_, i) => `Party Number ${i},person,ref-${i}`).join('\n');
    const big = await importCsv(browser, `query,type,reference\n${rows}\n`);
    expect(big.status).toBe(201);
    expect(big.body).toContain('Importing 2,000 parties');
    const tooBig = await importCsv(browser, 'x'.repeat(IMPORT_FORM_BODY_LIMIT_BYTES));
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toContain('A long list of monitors is imported through the API');
    // The other forms keep their small limit.
    const add = await browser.post('/dashboard/monitors', { _csrf: browser.csrf, query: 'x'.repeat(20_000) });
    expect(add.status).toBe(413);
  });

  it('refuses adding, deleting and closing without the session’s CSRF token', async () => {
    const { user, browser } = await signedIn();
    const forged = await browser.post('/dashboard/monitors', { query: GASTON, type: 'person' });
    expect(forged.status).toBe(403);
    const wrong = await browser.post('/dashboard/monitors', { _csrf: 'x'.repeat(43), query: GASTON });
    expect(wrong.status).toBe(403);
    const crossSite = await browser.post(
      '/dashboard/monitors',
      { _csrf: browser.csrf, query: GASTON, type: 'person' },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.status).toBe(403);
    expect((await api.request('GET', '/v1/monitors', { key: user.key })).body.data).toEqual([]);

    expect((await add(browser, { query: GASTON })).status).toBe(201);
    const [monitor] = (await api.request('GET', '/v1/monitors', { key: user.key })).body.data;
    const deleted = await browser.post(`/dashboard/monitors/${monitor.id}/delete`, { confirm: 'yes' });
    expect(deleted.status).toBe(403);
    expect((await api.request('GET', `/v1/monitors/${monitor.id}`, { key: user.key })).status).toBe(200);
    const closed = await browser.post(`/dashboard/alerts/${monitor.id}/close`, { note: 'forged' });
    expect(closed.status).toBe(403);

    const csv = `query\n${BADEGE}\n`;
    const forgedImport = await browser.post('/dashboard/monitors/import', { csv });
    expect(forgedImport.status).toBe(403);
    const crossSiteImport = await browser.post(
      '/dashboard/monitors/import',
      { _csrf: browser.csrf, csv },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSiteImport.status).toBe(403);
    expect((await api.request('GET', '/v1/monitors', { key: user.key })).body.data).toHaveLength(1);
  });
});
