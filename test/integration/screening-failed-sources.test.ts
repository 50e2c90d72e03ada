import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, backends } from '../support/backends.js';
import { accountWithUser, DashboardClient } from '../support/dashboard-client.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhooks-receiver.js';

const LISTS_DIR = FIXTURE_LISTS_DIR;
/** On the UN list (and in its excerpt among the fixtures). */
const LISTED = { query: 'Saddam Hussein Al-Tikriti', type: 'person' };
const NOT_LOADED = [{ source: 'eu_fsf', reason: 'unavailable' }];

/**
 * An official list that is enabled but cannot be loaded is a failed source, named in every answer
 * about a screening that selected it, and such an answer is never `complete`.
 */
describe.each(backends())('screening when an official list is not loaded ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let api: TestApp;
  let mirror: string;
  const logLines: { level: number; msg: string; lists?: string[] }[] = [];

  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
    // A mirror holding UN's list only: the EU's, enabled too, cannot be loaded from it.
    mirror = fs.mkdtempSync(path.join(os.tmpdir(), 'css-un-only-'));
    fs.copyFileSync(path.join(LISTS_DIR, 'consolidated.xml'), path.join(mirror, 'consolidated.xml'));
    api = await TestApp.start(backend, {
      logger: pino({ level: 'info' }, { write: (line: string) => logLines.push(JSON.parse(line)) }),
      env: {
        LISTS_DIR: mirror,
        LISTS_ENABLED: 'un_sc,eu_fsf',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_ALLOW_HTTP: 'true',
      },
    });
    await api.runtime.ctx.lists.settled();
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await drop?.();
    if (mirror) fs.rmSync(mirror, { recursive: true, force: true });
  });

  const screen = (key: string, body: unknown) => api.request('POST', '/v1/screen', { key, body });

  it('says at start, in one log line, which lists could not be loaded and how answers report them', () => {
    const lines = logLines.filter((line) => line.msg.startsWith('Lists not loaded'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, lists: ['eu_fsf'] });
    expect(lines[0]!.msg).toMatch(
      /^Lists not loaded: eu_fsf\. Screenings will report them in sources_failed/,
    );
  });

  it('names the list in sources_failed as unavailable and answers complete: false, live and read back', async () => {
    const { key } = await api.createAccount();
    const live = await screen(key, LISTED);
    expect(live.status).toBe(200);
    expect(live.body).toMatchObject({ sources_failed: NOT_LOADED, complete: false, cache_hit: false });
    expect(live.body.sources_queried).toEqual(['un_sc', 'eu_fsf']);
    expect(live.body.sources_matched).toEqual(['un_sc']);

    const stored = await api.request('GET', `/v1/screen/${live.body.id}`, { key });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ sources_failed: NOT_LOADED, complete: false });

    // Not kept in the cache: the next request asks the list again, and reports it again.
    const again = await screen(key, LISTED);
    expect(again.body).toMatchObject({ sources_failed: NOT_LOADED, complete: false, cache_hit: false });
    expect(again.body.id).not.toBe(live.body.id);
  });

  it('gives a screening stored before these fields existed both, from the errors stored with it', async () => {
    const { key } = await api.createAccount();
    const live = await screen(key, LISTED);
    // As such a row was written: no fields in the result, no reason in the recorded errors.
    await sql`UPDATE screenings SET result = (result::jsonb - 'sources_failed' - 'complete')::json,
      source_errors = ${JSON.stringify([{ source: 'eu_fsf', error: 'not loaded', timed_out: false }])}::jsonb
      WHERE id = ${live.body.id}`.execute(api.runtime.ctx.db);
    const stored = await api.request('GET', `/v1/screen/${live.body.id}`, { key });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({
      sources_failed: [{ source: 'eu_fsf', reason: 'error' }],
      complete: false,
    });
  });

  it('answers sources_failed: [] and complete: true, live and cached, when every selected list answered', async () => {
    const { key } = await api.createAccount();
    const body = { ...LISTED, options: { sources: ['un_sc'] } };
    const live = await screen(key, body);
    expect(live.body).toMatchObject({ sources_failed: [], complete: true, cache_hit: false });
    const cached = await screen(key, body);
    expect(cached.body).toMatchObject({
      sources_failed: [],
      complete: true,
      cache_hit: true,
      id: live.body.id,
    });
  });

  it('gives each batch result the failed list and complete: false, and the CSV a complete column', async () => {
    const { key } = await api.createAccount('professional');
    const items = [
      { ...LISTED, reference: 'listed' },
      { query: 'Nobody Listed Anywhere', reference: 'unlisted' },
    ];
    const queued = await api.request('POST', '/v1/screen/batch', { key, body: { items } });
    expect(queued.status).toBe(202);
    await api.runtime.batchWork.settle();
    const batch = await api.request('GET', `/v1/screen/batch/${queued.body.id}`, { key });
    expect(batch.body.results).toEqual([
      expect.objectContaining({ status: 'completed', sources_failed: NOT_LOADED, complete: false }),
      expect.objectContaining({ status: 'completed', sources_failed: NOT_LOADED, complete: false }),
    ]);
    const csv = await api.request('GET', `/v1/screen/batch/${queued.body.id}?format=csv`, { key });
    const [header, ...rows] = String(csv.body).trim().split('\r\n');
    const complete = header!.split(',').indexOf('complete');
    expect(complete).toBeGreaterThan(0);
    expect(rows.map((row) => row.split(',')[complete])).toEqual(['false', 'false']);

    // A batch limited to the list that loaded is complete.
    const unOnly = await api.request('POST', '/v1/screen/batch', {
      key,
      body: { items: [LISTED], options: { sources: ['un_sc'] } },
    });
    await api.runtime.batchWork.settle();
    const done = await api.request('GET', `/v1/screen/batch/${unOnly.body.id}`, { key });
    expect(done.body.results).toEqual([
      expect.objectContaining({ status: 'completed', sources_failed: [], complete: true }),
    ]);
  });

  it('shows an incomplete screening in the dashboard with a banner naming the list, never as a green "Low"', async () => {
    const user = await accountWithUser(api, 'professional');
    const browser = new DashboardClient(api.baseUrl);
    expect((await browser.signIn(user.email, user.password)).status).toBe(303);
    await browser.get('/dashboard/screen');
    const posted = await browser.post('/dashboard/screen', {
      _csrf: browser.csrf,
      type: 'entity',
      query: 'Nobody Listed Anywhere',
    });
    expect(posted.status).toBe(303);
    const page = await browser.get(posted.location!);
    expect(page.body).toMatch(/<div class="warning" id="incomplete">/);
    expect(page.body).toMatch(
      /<li>EU Consolidated Financial Sanctions List \(<code>eu_fsf<\/code>\): not available[^<]*<\/li>/,
    );
    expect(page.body).toMatch(
      /<span class="risk risk-incomplete" id="risk-level">Risk: Low, incomplete<\/span>/,
    );
    expect(page.body).not.toMatch(/risk-low/);

    const history = await browser.get('/dashboard/screenings');
    expect(history.body).toMatch(/<span class="risk risk-incomplete">Low, incomplete<\/span>/);
    expect(history.body).not.toMatch(/risk-low/);
  });

  it('sends the failed list and complete: false in the screening.complete webhook', async () => {
    const receiver = await WebhookReceiver.start({ status: 204 });
    try {
      const { key } = await api.createAccount();
      expect((await api.request('POST', '/v1/webhooks', { key, body: { url: receiver.url } })).status).toBe(
        201,
      );
      const live = await screen(key, LISTED);
      const [delivery] = await receiver.waitFor(1);
      const payload = JSON.parse(delivery!.body.toString('utf8'));
      expect(payload).toMatchObject({
        event: 'screening.complete',
        screening_id: live.body.id,
        data: { id: live.body.id, sources_failed: NOT_LOADED, complete: false },
      });
      await api.runtime.webhookDelivery.settle();
    } finally {
      await receiver.close();
    }
  });
});
