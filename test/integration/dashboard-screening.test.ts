import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../support/backends.js';
import { accountWithUser, DashboardClient } from '../support/dashboard-client.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

const LISTS_DIR = FIXTURE_LISTS_DIR;
/** A name on the small UK sanctions list fixture. */
const LISTED = 'BNK UK Limited';

function fieldError(html: string, id: string): string | undefined {
  return new RegExp(`<p id="${id}" class="field-error">([^<]*)</p>`).exec(html)?.[1];
}

function screeningIdOf(location: string | null): string {
  const match = /^\/dashboard\/screenings\/([0-9a-f-]{36})\?answered=(live|cache)$/.exec(location ?? '');
  if (!match) throw new Error(`not a screening's address: ${location}`);
  return match[1]!;
}

describe.each(backends())('dashboard screening console ($name)', (backend) => {
  let api: TestApp;
  beforeAll(async () => {
    api = await TestApp.start(backend, { env: { LISTS_DIR, LISTS_ENABLED: 'uk_fcdo' } });
    await api.runtime.ctx.lists.settled();
  });
  afterAll(async () => api?.close());

  async function signedIn(plan: 'starter' | 'professional' | 'enterprise' = 'professional') {
    const user = await accountWithUser(api, plan);
    const browser = new DashboardClient(api.baseUrl);
    expect((await browser.signIn(user.email, user.password)).status).toBe(303);
    await browser.get('/dashboard/screen');
    return { user, browser };
  }

  const screen = (browser: DashboardClient, fields: Record<string, string>) =>
    browser.post('/dashboard/screen', { _csrf: browser.csrf, type: 'entity', ...fields });

  it('stores a screening made in the console, which the API returns by id with the account’s key', async () => {
    const { user, browser } = await signedIn();
    const posted = await screen(browser, { query: LISTED });
    expect(posted.status).toBe(303);
    const id = screeningIdOf(posted.location);
    const page = await browser.get(posted.location!);
    expect(page.status).toBe(200);
    expect(page.body).toContain(id);

    const stored = await api.request('GET', `/v1/screen/${id}`, { key: user.key });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ id, entity: 'bnk uk limited', sources_queried: ['uk_fcdo'] });
    const row = await api.runtime.ctx.db
      .selectFrom('screenings')
      .select(['key_id', 'user_id', 'account_id'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ key_id: null, user_id: user.userId, account_id: user.accountId });
  });

  it('shows a listed name’s risk as a badge with the level written out, and each flag with its explanation', async () => {
    const { browser } = await signedIn();
    const posted = await screen(browser, { query: LISTED });
    const page = await browser.get(posted.location!);
    expect(page.body).toMatch(
      /<span class="risk risk-(high|critical)" id="risk-level">Risk: (High|Critical)<\/span>/,
    );
    expect(page.body).toMatch(/score <strong>\d+<\/strong> of 100/);
    const flags = /<table class="data records" id="flags">[\s\S]*?<\/table>\s*<\/div>/.exec(page.body)![0];
    expect(flags).toMatch(
      /<th scope="col">Type<\/th><th scope="col">Source<\/th><th scope="col">List<\/th><th scope="col">Score<\/th><th scope="col">Matched name<\/th>/,
    );
    expect(flags).toMatch(
      /<td data-label="Type">sanctions<\/td>\s*<td data-label="Source"><code>uk_fcdo<\/code><\/td>\s*<td data-label="List">UK_SANCTIONS_LIST<\/td>\s*<td data-label="Score">1\.00<\/td>/,
    );
    expect(flags).toMatch(/<details id="flag-1">\s*<summary>Details of flag 1: BNK [^<]+<\/summary>/);
    expect(flags).toMatch(/<dt>Matched name<\/dt><dd>BNK [^<]+<\/dd>/);
    expect(flags).toMatch(/<caption>Token pairs<\/caption>/);
    expect(flags).toMatch(/<dt>Penalties<\/dt>/);
    expect(flags).toMatch(/The listed record/);
    expect(page.body).not.toMatch(/<script(?![^>]*src=)/);
    expect(page.body).not.toMatch(/\son[a-z]+=/i);
  });

  it('holds the console to the API’s rate limit per user: beyond 100 screenings a minute, 429 with Retry-After', async () => {
    const { browser } = await signedIn();
    for (let k = 0; k < 100; k++)
      expect((await screen(browser, { query: `Nobody Listed ${k}` })).status).toBe(303);
    const refused = await screen(browser, { query: 'Nobody Listed Again' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body).toContain('try again in');
  });

  it('counts a console screening toward the monthly quota, as the page says', async () => {
    const { user, browser } = await signedIn('starter');
    const form = await browser.get('/dashboard/screen');
    expect(form.body).toMatch(/counts toward your monthly quota/);
    expect(form.body).toMatch(/<strong>0 of 500<\/strong> used/);
    expect((await screen(browser, { query: 'Console Quota Test Ltd' })).status).toBe(303);
    const usage = await api.request('GET', '/v1/usage', { key: user.key });
    expect(usage.body.current_month).toMatchObject({ count: 1, remaining: 499, key_count: 0 });
    expect((await browser.get('/dashboard/screen')).body).toMatch(/<strong>1 of 500<\/strong> used/);
    // The same question again is answered from the cache, and counted again, like the API's.
    const again = await screen(browser, { query: 'Console Quota Test Ltd' });
    expect(again.location).toMatch(/answered=cache$/);
    expect((await browser.get(again.location!)).body).toMatch(/from the cache/);
    expect((await api.request('GET', '/v1/usage', { key: user.key })).body.current_month.count).toBe(2);
  });

  it('refuses a screening once the month’s quota is used up, saying so plainly, and stores nothing', async () => {
    const { user, browser } = await signedIn('starter');
    await api.runtime.ctx.db
      .insertInto('usage_counters')
      .values({ account_id: user.accountId, month: `${new Date().toISOString().slice(0, 8)}01`, count: 500 })
      .execute();
    const refused = await screen(browser, { query: 'Quota Exhausted Ltd' });
    expect(refused.status).toBe(402);
    expect(refused.body).toMatch(
      /<p class="alert" role="alert" id="console-error"[^>]*>The monthly limit of 500 screenings is reached/,
    );
    expect(refused.body).toContain('value="Quota Exhausted Ltd"');
    const stored = await api.runtime.ctx.db
      .selectFrom('screenings')
      .select('id')
      .where('account_id', '=', user.accountId)
      .execute();
    expect(stored).toEqual([]);
  });

  it('shows a too-short name, a bad threshold and an unknown source as form errors, counting nothing', async () => {
    const { user, browser } = await signedIn();
    const short = await screen(browser, { query: ' x ' });
    expect(short.status).toBe(422);
    expect(fieldError(short.body, 'query-error')).toMatch(/The name must be 2 to 500 characters/);
    expect(short.body).toMatch(/id="query"[^>]*aria-invalid="true"/);

    for (const threshold of ['1.5', '-0.1', 'high']) {
      const bad = await screen(browser, { query: LISTED, threshold });
      expect(bad.status).toBe(422);
      expect(fieldError(bad.body, 'threshold-error')).toMatch(/from 0 to 1/);
    }
    const unknown = await screen(browser, { query: LISTED, sources: 'nowhere_list' });
    expect(unknown.status).toBe(422);
    expect(fieldError(unknown.body, 'sources-error')).toMatch(/unknown source ids: nowhere_list/i);
    expect((await api.request('GET', '/v1/usage', { key: user.key })).body.current_month.count).toBe(0);
  });

  it('takes a birth date, countries and an identifier, showing their errors at their fields', async () => {
    const { user, browser } = await signedIn();
    const badDate = await screen(browser, {
      query: LISTED,
      date_of_birth: '1990-13-01',
      countries: 'GB, QQ',
    });
    expect(badDate.status).toBe(422);
    expect(fieldError(badDate.body, 'dob-error')).toMatch(/The birth date has no such month/);
    expect(fieldError(badDate.body, 'countries-error')).toMatch(
      /&quot;QQ&quot; is not an ISO 3166-1 alpha-2 country code/,
    );
    expect((await api.request('GET', '/v1/usage', { key: user.key })).body.current_month.count).toBe(0);

    // No name, only the IMO number of the listed ship: found by it, at 1.0.
    const byImo = await screen(browser, {
      query: '',
      type: 'vessel',
      identifier_type: 'imo',
      identifier_value: 'IMO 9562233',
    });
    expect(byImo.status).toBe(303);
    const stored = await api.request('GET', `/v1/screen/${screeningIdOf(byImo.location)}`, { key: user.key });
    expect(stored.body.flags[0]).toMatchObject({
      source: 'uk_fcdo',
      match_score: 1,
      details: { match_explanation: { method: 'identifier' } },
    });
  });

  it('shows what was asked, and each fact given against every flag’s record', async () => {
    const { browser } = await signedIn();
    const posted = await screen(browser, {
      query: `  ${LISTED} `,
      date_of_birth: '1990',
      countries: 'gb, ie',
      identifier_type: 'company_number',
      identifier_value: ' 00000000 ',
      threshold: '0.6',
    });
    expect(posted.status).toBe(303);
    const page = (await browser.get(posted.location!)).body;
    const asked = /<dl class="facts" id="asked"[\s\S]*?<\/dl>/.exec(page)![0];
    const shown = [...asked.matchAll(/<dt>([^<]*)<\/dt><dd>([^<]*)<\/dd>/g)].map((m) => [m[1], m[2]]);
    expect(shown).toEqual([
      ['Name as given', LISTED],
      ['Type', 'entity'],
      ['Birth date', '1990'],
      ['Countries', 'GB (United Kingdom); IE (Ireland)'],
      ['Identifiers', 'Company number 00000000'],
      ['Threshold', '0.60'],
      ['Sources selected', 'uk_fcdo'],
      ['Adverse media', 'Not included'],
    ]);
    const comparisons = /<table class="pairs-table comparisons">[\s\S]*?<\/table>/.exec(page)![0];
    const rows = [...comparisons.matchAll(/<tr><th scope="row">([^<]*)<\/th><td class="comparison-(\w+)">/g)];
    expect(rows.map((m) => [m[1], m[2]])).toEqual([
      ['Identifiers', 'contradicts'],
      ['Birth date', 'unknown'],
      ['Countries', 'matches'],
    ]);
    // The record's own values beside each outcome, and what it did to the score (an exact name: nothing).
    expect(comparisons).toMatch(
      /<td class="comparison-matches">matches the record<\/td><td>none<\/td><td>GB<\/td>/,
    );
    expect(comparisons).toMatch(
      /<td class="comparison-unknown">cannot tell<\/td><td>none<\/td><td>Nothing<\/td>/,
    );
    expect(comparisons).toMatch(/<caption>The facts given, against the record<\/caption>/);
  });

  it('says a screening stored before requests were recorded did not record what was asked', async () => {
    const { user, browser } = await signedIn();
    const mine = await api.request('POST', '/v1/screen', { key: user.key, body: { query: LISTED } });
    await sql`UPDATE screenings SET result = (result::jsonb - 'request')::json WHERE id = ${mine.body.id}`.execute(
      api.runtime.ctx.db,
    );
    const page = (await browser.get(`/dashboard/screenings/${mine.body.id}`)).body;
    expect(page).toMatch(/<p id="asked">Not recorded: [^<]*“bnk uk limited”/);
    expect(page).not.toMatch(/id="asked" aria-labelledby/);
  });

  it('offers no adverse media where no source answers it, and applies the threshold and sources given', async () => {
    // GDELT is off here; the GDELT suite shows the box offered where it is on.
    const { browser } = await signedIn('professional');
    expect((await browser.get('/dashboard/screen')).body).not.toMatch(/name="adverse_media"/);
    const strict = await screen(browser, { query: 'BNKK UK Limited', threshold: '0.99', sources: 'uk_fcdo' });
    const page = await browser.get(strict.location!);
    expect(page.body).toMatch(/No flags/);
  });

  it('looks a screening up by id: its own is shown; another account’s and an unknown one are “not found”', async () => {
    const { user, browser } = await signedIn();
    const mine = await api.request('POST', '/v1/screen', { key: user.key, body: { query: LISTED } });
    const theirs = await api.createAccount('professional');
    const other = await api.request('POST', '/v1/screen', { key: theirs.key, body: { query: LISTED } });

    const lookup = await browser.get(`/dashboard/screenings?id=${mine.body.id}`);
    expect(lookup.status).toBe(303);
    const shown = await browser.get(lookup.location!);
    expect(shown.status).toBe(200);
    expect(shown.body).toContain(mine.body.id);

    for (const id of [other.body.id, randomUUID(), 'not-an-id']) {
      const missing = await browser.get(`/dashboard/screenings/${encodeURIComponent(id)}`);
      expect(missing.status).toBe(404);
      expect(missing.body).toMatch(/This account has no screening with the id/);
      expect(missing.body).not.toContain('UK_SANCTIONS_LIST');
    }
  });

  it('lists the account’s own screenings newest first, a page at a time', async () => {
    const { user, browser } = await signedIn('enterprise');
    const theirs = await api.createAccount('professional');
    await api.request('POST', '/v1/screen', { key: theirs.key, body: { query: 'Other Account Name' } });
    const names: string[] = [];
    for (let i = 0; i < 27; i++) {
      const name = `history entry ${String(i).padStart(2, '0')}`;
      names.push(name);
      const response = await api.request('POST', '/v1/screen', { key: user.key, body: { query: name } });
      expect(response.status).toBe(200);
    }
    expect((await screen(browser, { query: 'history from console' })).status).toBe(303);
    const rows = (html: string) =>
      [...html.matchAll(/<th scope="row"><a href="[^"]+">([^<]+)<\/a><\/th>/g)].map((m) => m[1]);
    const first = await browser.get('/dashboard/screenings');
    expect(rows(first.body)).toHaveLength(25);
    expect(rows(first.body)[0]).toBe('history from console');
    expect(rows(first.body)[1]).toBe('history entry 26');
    expect(first.body).toMatch(/<td>Dashboard<\/td>/);
    expect(first.body).not.toContain('other account name');
    const older = /href="(\/dashboard\/screenings\?before=[^"]+)" rel="next"/.exec(first.body)![1]!;
    const second = await browser.get(older.replace(/&amp;/g, '&'));
    expect(rows(second.body)).toEqual(['history entry 02', 'history entry 01', 'history entry 00']);
    expect(second.body).not.toMatch(/rel="next"/);
    expect(names).toHaveLength(27);
  });
});
