import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, backends } from '../support/backends.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhooks-receiver.js';

/**
 * An audit needs to know what a screening was asked, not only what it answered: every answer
 * (live, cached, stored, in a webhook) carries the request as screened.
 */
const ENV = {
  LISTS_DIR: FIXTURE_LISTS_DIR,
  LISTS_ENABLED: 'un_sc',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_ALLOW_HTTP: 'true',
};

const unique = () => Math.random().toString(36).slice(2, 8);

describe.each(backends())('a screening records what was asked ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let api: TestApp;

  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
    api = await TestApp.start(backend, { env: ENV });
    await api.runtime.ctx.lists.settled();
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await drop?.();
  });

  it('answers and stores the query, type, facts and options as screened, defaults applied', async () => {
    const { key } = await api.createAccount('professional');
    const query = `  Eric\u200b Badege ${unique()} `;
    const posted = await api.request('POST', '/v1/screen', {
      key,
      body: {
        query,
        type: 'person',
        date_of_birth: '1971',
        countries: ['cd', 'UK', 'CD'],
        identifiers: [{ type: 'passport', value: ' OP0045123 ', country: 'cd' }],
        options: { threshold: 0.6 },
      },
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    const request = {
      query: query.replace('\u200b', '').trim(),
      type: 'person',
      date_of_birth: '1971',
      countries: ['CD', 'GB'],
      identifiers: [{ type: 'passport', value: 'OP0045123', country: 'CD' }],
      options: { threshold: 0.6, sources: ['un_sc'], include_adverse_media: true },
    };
    expect(posted.body.request).toEqual(request);
    const stored = await api.request('GET', `/v1/screen/${posted.body.id}`, { key });
    expect(stored.status).toBe(200);
    expect(stored.body.request).toEqual(request);
  });

  it('records a screening by identifiers alone with a null query and no facts as empty', async () => {
    const { key } = await api.createAccount('starter');
    const posted = await api.request('POST', '/v1/screen', {
      key,
      body: { identifiers: [{ type: 'passport', value: `P${unique()}` }] },
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    expect(posted.body.request).toMatchObject({
      query: null,
      type: 'entity',
      date_of_birth: null,
      countries: [],
      options: { threshold: 0.5, sources: ['un_sc'], include_adverse_media: false },
    });
  });

  it('answers from the cache only a request recorded exactly as this one, and reports it', async () => {
    const { key } = await api.createAccount('professional');
    const name = `Eric Badege ${unique()}`;
    const ask = (body: object) =>
      api.request('POST', '/v1/screen', { key, body: { type: 'person', ...body } });
    const first = await ask({ query: name, countries: ['CD'] });
    const again = await ask({ query: name, countries: ['cd'] });
    expect(again.body).toMatchObject({ id: first.body.id, cache_hit: true, request: first.body.request });
    // The same party as screened (the entity), but asked otherwise: its own screening, its own record.
    const otherwise = await ask({ query: name.toUpperCase(), countries: ['CD'] });
    expect(otherwise.body.entity).toBe(first.body.entity);
    expect(otherwise.body.cache_hit).toBe(false);
    expect(otherwise.body.request.query).toBe(name.toUpperCase());
    const later = await ask({ query: name, countries: ['CD'], date_of_birth: '1971' });
    expect(later.body.cache_hit).toBe(false);
    expect(later.body.request.date_of_birth).toBe('1971');
  });

  it('answers null for a screening stored before requests were recorded', async () => {
    const { key } = await api.createAccount('professional');
    const posted = await api.request('POST', '/v1/screen', { key, body: { query: `Old One ${unique()}` } });
    // The row as an earlier version wrote it: the same result without its request.
    await sql`UPDATE screenings SET result = (result::jsonb - 'request')::json WHERE id = ${posted.body.id}`.execute(
      api.runtime.ctx.db,
    );
    const stored = await api.request('GET', `/v1/screen/${posted.body.id}`, { key });
    expect(stored.status).toBe(200);
    expect(stored.body.request).toBeNull();
    expect(stored.body.entity).toBe(posted.body.entity);
  });

  it("sends the request in the screening.complete webhook's data", async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const { key } = await api.createAccount('professional');
      const hook = await api.request('POST', '/v1/webhooks', { key, body: { url: receiver.url } });
      expect(hook.status).toBe(201);
      const posted = await api.request('POST', '/v1/screen', {
        key,
        body: { query: `Eric Badege ${unique()}`, type: 'person', date_of_birth: '1971-09' },
      });
      const [delivery] = await receiver.waitFor(1);
      const sent = JSON.parse(delivery!.body.toString('utf8'));
      expect(sent.data.request).toEqual(posted.body.request);
      expect(sent.data.request).toMatchObject({ type: 'person', date_of_birth: '1971-09' });
    } finally {
      await receiver.close();
    }
  });
});
