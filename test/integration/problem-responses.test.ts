import { once } from 'node:events';
import net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { systemClock } from '../../src/clock.js';
import { assembleServices } from '../../src/runtime.js';
import type { DatabaseSchema } from '../../src/store/schema.js';
import { backends } from '../support/backends.js';
import { parseResponse, rawRequest, requestBytes } from '../support/raw-http.js';
import { TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';

function expectProblem(
  response: { status: number; headers: Headers; body: any },
  status: number,
  type: string,
) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({ type: `/problems/${type}`, status });
  expect(response.body.request_id).toBe(response.headers.get('x-request-id'));
  expect(typeof response.body.title).toBe('string');
  expect(typeof response.body.instance).toBe('string');
}

describe.each(backends())('problem responses ($name)', (backend) => {
  let api: TestApp;
  let key: string;
  beforeAll(async () => {
    api = await TestApp.start(backend);
    key = (await api.createAccount()).key;
  });
  afterAll(async () => api?.close());

  it('answers malformed JSON with 400', async () => {
    const response = await api.request('POST', '/v1/keys', {
      key,
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(response, 400, 'malformed-request');
  });

  it('answers an unknown route with 404 (with a key) and 401 (without one)', async () => {
    expectProblem(await api.request('GET', '/v1/nothing-here', { key }), 404, 'not-found');
    expectProblem(await api.request('GET', '/v1/nothing-here'), 401, 'unauthenticated');
    expectProblem(await api.request('GET', '/nothing-here'), 404, 'not-found');
  });

  it('answers a known path with a wrong method with 405 and an Allow header', async () => {
    const response = await api.request('PUT', '/v1/keys', { key, body: {} });
    expectProblem(response, 405, 'method-not-allowed');
    expect(response.headers.get('allow')).toBe('GET, POST');
  });

  it('answers a body over 1 MB with 413', async () => {
    const response = await api.request('POST', '/v1/keys', {
      key,
      rawBody: JSON.stringify({ name: 'x'.repeat(1_100_000) }),
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(response, 413, 'payload-too-large');
  });

  it('answers a non-JSON body with 415', async () => {
    const response = await api.request('POST', '/v1/keys', {
      key,
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectProblem(response, 415, 'unsupported-media-type');
  });

  it('answers a text/plain body with 415 rather than trying to validate it', async () => {
    const response = await api.request('POST', '/v1/keys', {
      key,
      rawBody: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expectProblem(response, 415, 'unsupported-media-type');
  });

  it('answers a URL that cannot be decoded with a 400 problem and a request id', async () => {
    const response = await api.request('GET', '/v1/%zz', { key });
    expectProblem(response, 400, 'malformed-request');
  });

  it('answers a NUL character, which no database text can hold, with 422 at its field, counting nothing', async () => {
    const named = await api.request('POST', '/v1/keys', { key, body: { name: 'a\u0000b' } });
    expectProblem(named, 422, 'validation-failed');
    expect(named.body.errors).toEqual([{ pointer: '/name', detail: 'must not hold a NUL character' }]);
    const fresh = await api.createAccount();
    for (const [path, body] of [
      ['/v1/screen', { query: 'Zeta\u0000 Corp' }],
      [
        '/v1/monitors',
        { query: 'Zeta Corp', reference: 'r\u0000', identifiers: [{ type: 'passport', value: '1\u00002' }] },
      ],
    ] as const) {
      const refused = await api.request('POST', path, { key: fresh.key, body });
      expectProblem(refused, 422, 'validation-failed');
      expect(refused.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(
        path === '/v1/screen' ? ['/query'] : ['/reference', '/identifiers/0/value'],
      );
    }
    expect((await api.request('GET', '/v1/usage', { key: fresh.key })).body.current_month.count).toBe(0);
  });

  it('answers a forged audit cursor with 422', async () => {
    const forged = Buffer.from(JSON.stringify(['2024-01-01T00:00:00Z', 'x'])).toString('base64url');
    expectProblem(await api.request('GET', `/v1/audit?cursor=${forged}`, { key }), 422, 'validation-failed');
  });

  it('answers schema violations with 422 and a pointer per field, without coercing types', async () => {
    const response = await api.request('POST', '/v1/keys', { key, body: { name: 42, extra: true } });
    expectProblem(response, 422, 'validation-failed');
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        { pointer: '/name', detail: 'must be string' },
        { pointer: '/extra', detail: 'is not a known field' },
      ]),
    );
  });

  it('names the allowed values of a field that takes a few, in one item per field', async () => {
    const screened = await api.request('POST', '/v1/screen', {
      key,
      body: { query: 'John Smith', type: 'human' },
    });
    expectProblem(screened, 422, 'validation-failed');
    expect(screened.body.errors).toEqual([
      { pointer: '/type', detail: 'must be one of person, organization, vessel, aircraft, entity' },
    ]);
    const account = (await api.createAccount()).account;
    const limited = await api.request('PATCH', `/admin/v1/accounts/${account.id}`, {
      key: TEST_ADMIN_TOKEN,
      body: { rate_limit_per_minute: 0, plan: 'gold' },
    });
    expectProblem(limited, 422, 'validation-failed');
    expect(limited.body.errors).toEqual(
      expect.arrayContaining([
        { pointer: '/rate_limit_per_minute', detail: 'must be >= 1' },
        { pointer: '/plan', detail: expect.stringMatching(/^must be one of starter, [a-z, ]+$/) },
      ]),
    );
    expect(limited.body.errors).toHaveLength(2);
  });

  it('answers a docs file path the file server refuses (a NUL byte) with 404, not 500', async () => {
    for (const path of ['/docs/static/index.html%00.js', '/docs/static/%00', '/docs/static/a%00b']) {
      expectProblem(await api.request('GET', path), 404, 'not-found');
    }
  });

  it('answers 404, not 405, when a route of the request method finds nothing there', async () => {
    const page = await api.request('GET', '/problems/no-such-problem');
    expectProblem(page, 404, 'not-found');
    expect(page.headers.get('allow')).toBeNull();
    expectProblem(await api.request('GET', '/docs/static/no-such-file.js'), 404, 'not-found');
    expect((await api.app.inject({ method: 'HEAD', url: '/problems/no-such-problem' })).statusCode).toBe(404);
    expectProblem(await api.request('POST', '/problems/not-found'), 405, 'method-not-allowed');
  });

  it('answers requests the HTTP parser rejects with a problem document, not a plain JSON error', async () => {
    const port = Number(new URL(api.baseUrl).port);
    const cases: Array<[Array<[string, string]>, number, string]> = [
      [[['content-length', 'abc']], 400, 'malformed-request'],
      [
        [
          ['content-length', '2'],
          ['content-length', '3'],
        ],
        400,
        'malformed-request',
      ],
      [
        [
          ['content-length', '2'],
          ['transfer-encoding', 'chunked'],
        ],
        400,
        'malformed-request',
      ],
      [[['x-note', 'a\u0001b']], 400, 'malformed-request'],
      [[['x-big', 'a'.repeat(20_000)]], 431, 'headers-too-large'],
    ];
    for (const [headers, status, type] of cases) {
      const answer = await rawRequest(port, requestBytes('POST', '/v1/keys?x=1', headers, '{}'));
      expect(answer.status).toBe(status);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      const problem = JSON.parse(answer.body);
      expect(problem).toMatchObject({ type: `/problems/${type}`, status, instance: '/v1/keys' });
      expect(problem.request_id).toBe(answer.headers['x-request-id']);
      expect(typeof problem.title).toBe('string');
    }
  });

  it('serves problem type pages for every problem type it returns', async () => {
    const page = await fetch(`${api.baseUrl}/problems/quota-exceeded`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('402');
  });
});

describe('failures inside the service', () => {
  const backend = backends()[0]!;

  it('answers an unexpected error with 500 and no internals', async () => {
    const api = await TestApp.start(backend, {
      adjust: (ctx) => ({
        ...ctx,
        checkHealth: async () => {
          throw new Error('SELECT secret_column FROM internal_table');
        },
      }),
    });
    try {
      const response = await api.request('GET', '/v1/health');
      expectProblem(response, 500, 'internal');
      const text = JSON.stringify(response.body);
      expect(text).not.toMatch(/secret_column|internal_table|at .*\.ts|stack/);
    } finally {
      await api.close();
    }
  });

  it('answers 503 when the database cannot be reached, and health says so', async () => {
    // A real PostgreSQL client pointed at a port where nothing listens.
    const unreachable = new Kysely<DatabaseSchema>({
      dialect: new PostgresDialect({
        pool: new pg.Pool({
          connectionString: 'postgres://nobody@127.0.0.1:9/none',
          connectionTimeoutMillis: 500,
        }),
      }),
    });
    const services = await assembleServices({
      db: unreachable,
      redis: undefined,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      adminToken: TEST_ADMIN_TOKEN,
      redisKeyPrefix: 'unused:',
    });
    const app = await buildApp(services.ctx);
    try {
      const usage = await app.inject({
        url: '/v1/usage',
        headers: { authorization: `Bearer cs_live_${'a'.repeat(32)}` },
      });
      expect(usage.statusCode).toBe(503);
      expect(usage.json()).toMatchObject({ type: '/problems/service-unavailable' });
      const health = await app.inject({ url: '/v1/health' });
      expect(health.statusCode).toBe(503);
      expect(health.json()).toMatchObject({ status: 'down', database: 'down' });
    } finally {
      await app.close();
      await unreachable.destroy();
    }
  });
});

describe('a request that arrives while the server closes', () => {
  it('gets a 503 problem with its request id, nosniff, Retry-After and Connection: close', async () => {
    const api = await TestApp.start(backends()[0]!);
    try {
      const { key } = await api.createAccount();
      const socket = net.connect(Number(new URL(api.baseUrl).port), '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', () => {});
      const socketClosed = once(socket, 'close');
      await once(socket, 'connect');
      const body = JSON.stringify({ name: 'in flight at close' });
      // The first request's body is still arriving when the server starts closing (so its
      // connection is busy, not idle); a second request follows it on the same connection.
      socket.write(
        `POST /v1/keys HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
      );
      await delay(100);
      const closed = api.app.close();
      await delay(100);
      socket.write(
        `${body.slice(5)}GET /v1/usage HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\n\r\n`,
      );
      await socketClosed;
      await closed;

      const text = Buffer.concat(chunks).toString('latin1');
      expect(parseResponse(Buffer.from(text, 'latin1'))?.status).toBe(201);
      const second = parseResponse(Buffer.from(text.slice(text.indexOf('HTTP/1.1', 1)), 'latin1'))!;
      expect(second.status).toBe(503);
      expect(second.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(second.headers['x-content-type-options']).toBe('nosniff');
      expect(second.headers.connection).toBe('close');
      expect(second.headers['retry-after']).toBe('1');
      const problem = JSON.parse(second.body);
      expect(problem).toMatchObject({ type: '/problems/service-unavailable', status: 503 });
      expect(problem.request_id).toBe(second.headers['x-request-id']);
    } finally {
      await api.runtime.close();
    }
  });
});
