import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EndpointGuard } from '../../src/webhooks/endpoint-guard.js';
import { SecretBox } from '../../src/webhooks/secret-box.js';
import { WebhookService } from '../../src/webhooks/webhook-service.js';
import { WebhookSubscriptions } from '../../src/webhooks/webhook-subscriptions.js';
import { type Backend, backends } from '../support/backends.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { TestApp } from '../support/test-app.js';

const HOOK = 'https://hooks.example.com/screening';

// Registration connects to nothing, and no screening here makes a delivery: the public endpoints
// are IP literals (nothing to resolve) and the only name resolved is localhost (the hosts file).
// Names that do not resolve are covered by the unit tests with a stand-in resolver.
describe.each(backends())('webhook registration ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let api: TestApp;
  let dataDir: string;

  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
    dataDir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'css-webhooks-'));
    api = await TestApp.start(backend, { dataDir });
  });
  afterAll(async () => {
    await api?.close();
    await drop?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  // A public address literal: registration resolves nothing and connects to nothing.
  const PUBLIC = 'https://93.184.215.14/hooks';
  const register = (key: string, body: unknown) => api.request('POST', '/v1/webhooks', { key, body });

  it('creates a webhook and shows its whsec_ secret once, never again', async () => {
    const { key } = await api.createAccount('professional');
    const created = await register(key, { url: PUBLIC });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url: PUBLIC, events: ['screening.complete'], status: 'active' });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const listed = await api.request('GET', '/v1/webhooks', { key });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      {
        id: created.body.id,
        url: PUBLIC,
        events: ['screening.complete'],
        status: 'active',
        consecutive_failures: 0,
        last_delivery_at: null,
        created_at: created.body.created_at,
      },
    ]);
    const one = await api.request('GET', `/v1/webhooks/${created.body.id}`, { key });
    expect(one.body).toEqual(listed.body.data[0]);
    expect(JSON.stringify([listed.body, one.body])).not.toContain(created.body.secret.slice(6));
  });

  it('stores the secret encrypted, with a key generated into DATA_DIR with mode 0600', async () => {
    const { key } = await api.createAccount('enterprise');
    const created = await register(key, { url: PUBLIC, events: ['batch.complete', 'screening.complete'] });
    expect(created.body.events).toEqual(['batch.complete', 'screening.complete']);
    const row = await api.runtime.ctx.db
      .selectFrom('webhooks')
      .select('secret_ciphertext')
      .where('id', '=', created.body.id)
      .executeTakeFirstOrThrow();
    expect(row.secret_ciphertext).toMatch(/^v1:[0-9a-f]{8}:/);
    expect(row.secret_ciphertext).not.toContain(created.body.secret.slice(6));
    expect(fs.statSync(path.join(dataDir, 'secret-key')).mode & 0o777).toBe(0o600);
  });

  it('refuses webhooks on the Starter plan with 403 plan-feature-unavailable', async () => {
    const { key } = await api.createAccount('starter');
    const response = await register(key, { url: PUBLIC });
    expect(response.status).toBe(403);
    expect(response.body.type).toBe('/problems/plan-feature-unavailable');
    expect((await api.request('GET', '/v1/webhooks', { key })).body.data).toEqual([]);
  });

  it.each([
    ['a plain http URL', { url: 'http://93.184.215.14/hooks' }, '/url', /https/],
    ['credentials in the URL', { url: 'https://user:secret@93.184.215.14/hooks' }, '/url', /credentials/],
    ['a URL over 2,048 characters', { url: `${PUBLIC}/${'a'.repeat(2_048)}` }, '/url', /2048/],
    ['something that is not a URL', { url: 'hooks.example.com' }, '/url', /absolute URL/],
    [
      'an unknown event',
      { url: PUBLIC, events: ['screening.complete', 'list.updated'] },
      '/events/1',
      /list\.updated.*known: screening\.complete, batch\.complete/,
    ],
    ['an empty event list', { url: PUBLIC, events: [] }, '/events', /.+/],
    ['a missing url', { events: ['screening.complete'] }, '/url', /required/],
    ['an unknown field', { url: PUBLIC, secret: 'mine' }, '/secret', /not a known field/],
  ])('answers 422 for %s, pointing at the field', async (_case, body, pointer, detail) => {
    const { key } = await api.createAccount();
    const response = await register(key, body);
    expect(response.status).toBe(422);
    const error = response.body.errors.find((e: { pointer: string }) => e.pointer === pointer);
    expect(error, JSON.stringify(response.body.errors)).toBeDefined();
    expect(error.detail).toMatch(detail);
  });

  it.each([
    ['https://127.0.0.1/hooks', /loopback/],
    ['https://10.0.0.1/hooks', /private-network/],
    ['https://192.168.1.1/hooks', /private-network/],
    ['https://[::1]/hooks', /loopback/],
    ['https://[::ffff:127.0.0.1]/hooks', /loopback/],
    ['https://169.254.169.254/latest/meta-data/', /cloud metadata/],
    ['https://localhost/hooks', /loopback/],
    ['https://100.64.0.1/hooks', /carrier-grade NAT/],
    ['https://[fd00::1]/hooks', /unique-local/],
  ])('refuses %s at registration (SSRF guard)', async (url, reason) => {
    const { key } = await api.createAccount();
    const response = await register(key, { url });
    expect(response.status).toBe(422);
    expect(response.body.type).toBe('/problems/validation-failed');
    expect(response.body.errors).toEqual([{ pointer: '/url', detail: expect.stringMatching(reason) }]);
  });

  it('allows 10 webhooks per account and answers the 11th with 422 limit-reached', async () => {
    const { key } = await api.createAccount();
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await register(key, { url: `${PUBLIC}/${i}` })).status);
    expect(statuses).toEqual(Array(10).fill(201));
    const eleventh = await register(key, { url: `${PUBLIC}/10` });
    expect(eleventh.status).toBe(422);
    expect(eleventh.body.type).toBe('/problems/limit-reached');
    // Deleting one makes room again.
    const first = (await api.request('GET', '/v1/webhooks', { key })).body.data[0];
    expect((await api.request('DELETE', `/v1/webhooks/${first.id}`, { key })).status).toBe(204);
    expect((await register(key, { url: `${PUBLIC}/10` })).status).toBe(201);
  });

  it('deletes with 204 and no body; afterwards the webhook is not found', async () => {
    const { key } = await api.createAccount();
    const { id } = (await register(key, { url: PUBLIC })).body;
    const deleted = await api.request('DELETE', `/v1/webhooks/${id}`, { key });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect(deleted.headers.get('content-length') ?? '0').toBe('0');
    for (const [method, url] of [
      ['GET', `/v1/webhooks/${id}`],
      ['DELETE', `/v1/webhooks/${id}`],
      ['GET', `/v1/webhooks/${id}/deliveries`],
    ] as const) {
      expect((await api.request(method, url, { key })).status).toBe(404);
    }
    expect((await api.request('GET', '/v1/webhooks', { key })).body.data).toEqual([]);
  });

  it("answers 404 for another account's webhook, and for a malformed id", async () => {
    const owner = await api.createAccount();
    const other = await api.createAccount();
    const { id } = (await register(owner.key, { url: PUBLIC })).body;
    for (const [method, url] of [
      ['GET', `/v1/webhooks/${id}`],
      ['DELETE', `/v1/webhooks/${id}`],
      ['GET', `/v1/webhooks/${id}/deliveries`],
      ['GET', '/v1/webhooks/not-a-uuid'],
    ] as const) {
      const response = await api.request(method, url, { key: other.key });
      expect(response.status, `${method} ${url}`).toBe(404);
      expect(response.body.type).toBe('/problems/not-found');
    }
    expect((await api.request('GET', '/v1/webhooks', { key: other.key })).body.data).toEqual([]);
    expect((await api.request('GET', `/v1/webhooks/${id}`, { key: owner.key })).status).toBe(200);
  });

  it('requires a key on every webhook route', async () => {
    expect((await api.request('GET', '/v1/webhooks')).status).toBe(401);
    expect((await api.request('POST', '/v1/webhooks', { body: { url: HOOK } })).status).toBe(401);
  });

  it('answers 422 for a deliveries limit out of range', async () => {
    const { key } = await api.createAccount();
    const { id } = (await register(key, { url: PUBLIC })).body;
    const response = await api.request('GET', `/v1/webhooks/${id}/deliveries?limit=500`, { key });
    expect(response.status).toBe(422);
    expect((await api.request('GET', `/v1/webhooks/${id}/deliveries`, { key })).body).toEqual({ data: [] });
  });
});

describe.each(backends())('webhook registration with a resolver that does not answer ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let api: TestApp;

  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
    // The same service as in production but for its resolver, which never answers, and a wait of
    // 100 ms instead of 5 s, so the test does not sit out the production timeout.
    api = await TestApp.start(backend, {
      adjust: (ctx) => ({
        ...ctx,
        webhooks: new WebhookService({
          db: ctx.db,
          clock: ctx.clock,
          guard: new EndpointGuard(
            { allowPrivateNetworks: false, allowHttp: false },
            () => new Promise(() => {}),
          ),
          secrets: new SecretBox(() => Buffer.alloc(32, 7)),
          subscriptions: new WebhookSubscriptions(ctx.db, false),
          resolveTimeoutMs: 100,
        }),
      }),
    });
  });
  afterAll(async () => {
    await api?.close();
    await drop?.();
  });

  it('answers 503 when the host does not resolve in time, and registers nothing', async () => {
    const { key } = await api.createAccount('professional');
    const started = performance.now();
    const response = await api.request('POST', '/v1/webhooks', {
      key,
      body: { url: 'https://slow-dns.example/hook' },
    });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.detail).toMatch(/did not resolve within 0.1 s/);
    expect((await api.request('GET', '/v1/webhooks', { key })).body).toEqual({ data: [] });
  });
});
