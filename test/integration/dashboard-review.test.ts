import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVIEW_QUEUE_MAX_FLAGS } from '../../src/screening/decisions/review-queue.js';
import { backends } from '../support/backends.js';
import { accountWithUser, DashboardClient } from '../support/dashboard-client.js';
import { FakeClock } from '../support/fake-clock.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

/** A name on the small UK sanctions list fixture. */
const LISTED = 'BNK UK Limited';
const DAY_MS = 24 * 60 * 60 * 1000;

/** The screened names of the queue's rows, in order (each row's heading links to its screening). */
function queuedNames(html: string): string[] {
  return [
    ...html.matchAll(
      /<h2 id="review-\d+"><a href="[^"]+">([^<]*)<\/a>(?: <span class="hint">\(ref\. ([^)]*)\))?/g,
    ),
  ].map((m) => `${m[1]}${m[2] ? ` [${m[2]}]` : ''}`);
}

describe.each(backends())('dashboard review queue ($name)', (backend) => {
  let api: TestApp;
  const clock = new FakeClock('2026-03-10T09:00:00.000Z');

  beforeAll(async () => {
    api = await TestApp.start(backend, {
      clock,
      env: { LISTS_DIR: FIXTURE_LISTS_DIR, LISTS_ENABLED: 'uk_fcdo' },
    });
    await api.runtime.ctx.lists.settled();
  });
  afterAll(async () => api?.close());

  // A minute apart: the queue's order is the screenings' time.
  const screen = async (key: string, body: Record<string, unknown>) => {
    clock.advance(60_000);
    const response = await api.request('POST', '/v1/screen', { key, body });
    expect(response.status).toBe(200);
    return response.body;
  };

  async function review(user: { email: string; password: string }, query = ''): Promise<string[]> {
    const browser = new DashboardClient(api.baseUrl);
    expect((await browser.signIn(user.email, user.password)).status).toBe(303);
    const page = await browser.get(`/dashboard/review${query}`);
    expect(page.status).toBe(200);
    return queuedNames(page.body);
  }

  it('lists each undecided record of a party once, at medium risk or above, of the last 30 days by default', async () => {
    const user = await accountWithUser(api);
    const other = await accountWithUser(api);
    const old = await screen(user.key, { query: LISTED, reference: 'old-party' });
    expect(old.risk_level).not.toBe('low');
    clock.advance(10 * DAY_MS);
    // The same party twice (another threshold is another screening): one row, the latest.
    await screen(user.key, { query: LISTED, reference: 'twice' });
    await screen(user.key, { query: LISTED, reference: 'twice', options: { threshold: 0.6 } });
    const decided = await screen(user.key, { query: LISTED, reference: 'decided' });
    await screen(user.key, { query: 'Jane Unlisted Person', reference: 'clean' });
    await screen(other.key, { query: LISTED, reference: 'theirs' });
    const flag = decided.flags[0];
    const path = `/v1/screen/${decided.id}/flags/${encodeURIComponent(flag.id)}/decision`;
    const made = await api.request('POST', path, {
      key: user.key,
      body: { decision: 'true_match', note: 'checked' },
    });
    expect(made.status).toBe(201);

    // The fixture lists the company once: one flag per screening.
    expect(old.flags).toHaveLength(1);
    expect(await review(user)).toEqual(['bnk uk limited [twice]', 'bnk uk limited [old-party]']);

    // 25 days later the first screening is 35 days old: out of the default window, in a wider one.
    clock.advance(25 * DAY_MS);
    expect(await review(user)).toEqual(['bnk uk limited [twice]']);
    expect(await review(user, '?days=60')).toEqual(['bnk uk limited [twice]', 'bnk uk limited [old-party]']);

    // A withdrawn decision puts its flag back in the queue.
    expect((await api.request('DELETE', `/v1/decisions/${made.body.id}`, { key: user.key })).status).toBe(
      204,
    );
    expect(await review(user)).toEqual(['bnk uk limited [decided]', 'bnk uk limited [twice]']);
    expect(await review(other)).toEqual(['bnk uk limited [theirs]']);
  });

  it('says when more flags wait than the queue shows, and shows the newest', async () => {
    const user = await accountWithUser(api);
    // The per-minute rate limit counts real time; the screenings here are many, quickly.
    await api.admin('PATCH', `/admin/v1/accounts/${user.accountId}`, { rate_limit_per_minute: 100_000 });
    const browser = new DashboardClient(api.baseUrl);
    expect((await browser.signIn(user.email, user.password)).status).toBe(303);
    for (let party = 1; party <= REVIEW_QUEUE_MAX_FLAGS; party++)
      await screen(user.key, { query: LISTED, reference: `party-${party}` });
    const full = (await browser.get('/dashboard/review')).body;
    expect(queuedNames(full)).toHaveLength(REVIEW_QUEUE_MAX_FLAGS);
    expect(full).not.toContain('id="queue-more"');
    await screen(user.key, { query: LISTED, reference: 'party-newest' });
    const over = (await browser.get('/dashboard/review')).body;
    const names = queuedNames(over);
    expect(names).toHaveLength(REVIEW_QUEUE_MAX_FLAGS);
    expect(names[0]).toBe('bnk uk limited [party-newest]');
    expect(names).not.toContain('bnk uk limited [party-1]');
    expect(over).toMatch(/id="queue-more">More flags are waiting than the 100 newest shown here/);
  });
});
