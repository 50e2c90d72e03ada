import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { backends } from '../support/backends.js';
import {
  expectHandled,
  expectHealthy,
  expectUnpolluted,
  HostileApi,
  injectHostile,
  prototypeSnapshot,
  runs,
} from '../support/hostile-app.js';
import { CONTENT_TYPES, invalidUtf8 } from '../support/hostile-inputs.js';
import { rawRequest, requestBytes } from '../support/raw-http.js';
import type { RecordedRoute } from '../support/route-table.js';
import { TEST_ADMIN_TOKEN } from '../support/test-app.js';

const recorded = vi.hoisted(() => [] as RecordedRoute[]);
vi.mock('fastify', async (importOriginal) => {
  const { recordingFastify } = await import('../support/route-table.js');
  return recordingFastify(await importOriginal(), recorded);
});

/** Header text an HTTP/1.1 parser passes on: visible ASCII, space, tab and obs-text (0x80-0xff). */
const headerChar = fc.oneof(
  fc.integer({ min: 0x20, max: 0x7e }),
  fc.integer({ min: 0x80, max: 0xff }),
  fc.constant(0x09),
);
const headerText = (maxLength: number) =>
  fc.array(headerChar, { maxLength }).map((codes) => String.fromCharCode(...codes));

/** Only `Bearer <the credential>` (any case, spaces around) may authenticate. */
function carries(header: string, credential: string): boolean {
  return /^Bearer +(\S+) *$/i.exec(header)?.[1] === credential;
}

// Tests here walk every route of the app: far past one request's 30 s when the machine is busy.
describe.each(backends())('hostile headers ($name)', { timeout: 120_000 }, (backend) => {
  let hostile: HostileApi;
  const prototypes = prototypeSnapshot();
  beforeAll(async () => {
    hostile = await HostileApi.start(backend, recorded);
  });
  afterAll(async () => hostile?.close());

  const authenticated = () => hostile.routes.filter((r) => r.auth !== 'none');
  const credentialOf = (route: RecordedRoute) =>
    (hostile.credentials(route).authorization ?? '').replace(/^Bearer /, '');

  /** Authorization values: near misses of the real credential, other schemes, junk, 100 KB. */
  const authorization = (credential: string) =>
    fc.oneof(
      fc.constantFrom(
        '',
        'Bearer',
        'Bearer ',
        'bearer',
        `Basic ${Buffer.from(`x:${credential}`).toString('base64')}`,
        `Token ${credential}`,
        credential,
        ` Bearer ${credential}`,
        `Bearer ${credential} extra`,
        `Bearer ${credential}x`,
        `Bearer ${credential.slice(0, -1)}`,
        `Bearer ${credential.toUpperCase()}`,
        `Bearer "${credential}"`,
        `Bearer ${credential},Bearer ${credential}`,
        `Bearer cs_live_${'A'.repeat(32)}`,
        `Bearer ${TEST_ADMIN_TOKEN}x`,
        `Bearer ${'a'.repeat(100_000)}`,
      ),
      headerText(60).map((junk) => `Bearer ${junk}`),
      headerText(60),
    );

  it('enumerates every route of the app, the known resources among them', () => {
    hostile.expectCompleteRouteTable();
    expect(authenticated().length).toBeGreaterThanOrEqual(20);
  });

  it('refuses every hostile Authorization header on every authenticated route with a 401 problem', async () => {
    for (const route of authenticated()) {
      const credential = credentialOf(route);
      await fc.assert(
        fc.asyncProperty(authorization(credential), async (header) => {
          const answer = await injectHostile(hostile, {
            method: route.method,
            url: hostile.fillPath(route),
            headers: { authorization: header },
          });
          if (!carries(header, credential)) expect(answer.status, header.slice(0, 80)).toBe(401);
        }),
        runs(8),
      );
    }
  });

  it('answers hostile Content-Type, Accept, Cookie, User-Agent and forwarding headers on every route', async () => {
    const others = fc.record(
      {
        'content-type': fc.oneof(
          fc.constantFrom(...CONTENT_TYPES.filter((t) => t !== undefined)),
          headerText(40),
        ),
        accept: fc.oneof(
          fc.constantFrom('*/*', 'text/csv', 'application/xml', 'image/png;q=0'),
          headerText(40),
        ),
        'accept-encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', '*;q=0', 'x'),
        'content-encoding': fc.constantFrom('gzip', 'br', 'deflate', 'chunked', 'x'),
        cookie: fc.oneof(fc.constant('api_key=cs_live_x; session=..'), headerText(200)),
        'user-agent': fc.oneof(headerText(100), fc.constant('u'.repeat(10_000))),
        'x-forwarded-for': fc.oneof(
          fc.constantFrom('127.0.0.1, ::1', '999.1.1.1', '', 'unknown'),
          headerText(40),
        ),
        'x-request-id': headerText(80),
        'x-api-key': headerText(40),
        origin: headerText(40),
        range: fc.constantFrom('bytes=0-', 'bytes=-1', 'bytes=5-1', 'lines=1-2'),
        'if-none-match': fc.constantFrom('*', '"x"', 'W/"x"', ''),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...hostile.routes), others, async (route, headers) => {
        const readsBody = !['GET', 'HEAD'].includes(route.method);
        await injectHostile(hostile, {
          method: route.method,
          url: hostile.fillPath(route),
          headers: { ...headers, ...hostile.credentials(route) },
          ...(readsBody ? { payload: '{"name":"Jane Doe"}' } : {}),
        });
      }),
      runs(100),
    );
  });

  // Node keeps the first of two Authorization or Content-Type headers and joins repeated unknown
  // ones; whatever the order, a request authenticates only with a credential it carries.
  it('answers duplicated Authorization, Content-Type and X-Api-Key headers (raw HTTP) with a problem or as one', async () => {
    const line = (route: RecordedRoute) =>
      fc.oneof(
        fc.constantFrom<[string, string]>(
          ['authorization', `Bearer ${credentialOf(route) || 'none'}`],
          ['authorization', 'Bearer cs_live_wrong'],
          ['authorization', `Bearer ${TEST_ADMIN_TOKEN}`],
          ['Authorization', ''],
          ['content-type', 'application/json'],
          ['content-type', 'text/csv'],
          ['Content-Type', 'text/plain'],
          ['x-api-key', credentialOf(route) || 'x'],
        ),
        headerText(30).map((v): [string, string] => ['x-api-key', v]),
      );
    const request = fc.constantFrom(...hostile.routes).chain((route) =>
      fc.record({
        route: fc.constant(route),
        headers: fc.array(line(route), { minLength: 2, maxLength: 6 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(request, async ({ route, headers }) => {
        const body = '{"name":"Jane Doe"}';
        const path = hostile.fillPath(route);
        const answer = await rawRequest(
          hostile.port,
          requestBytes(route.method, path, [...headers, ['content-length', String(body.length)]], body),
        );
        expectHandled(answer, `${route.method} ${path} ${JSON.stringify(headers)}`, route.method, path);
        const credential = credentialOf(route);
        const sent = headers.filter(([name]) => name.toLowerCase() === 'authorization').map(([, v]) => v);
        if (route.auth !== 'none' && answer.status < 400)
          expect(sent.some((v) => carries(v, credential))).toBe(true);
      }),
      runs(60),
    );
  });

  it('answers an invalid or contradictory Content-Length with a 400 problem, on every route', async () => {
    const framing = fc.oneof(
      fc
        .constantFrom(
          'abc',
          '-1',
          '+12',
          '1.5',
          '0x10',
          '1e3',
          ' ',
          '',
          '99999999999999999999',
          '12, 13',
          '١٢',
        )
        .map((v): Array<[string, string]> => [['content-length', v]]),
      fc.constant<Array<[string, string]>>([
        ['content-length', '19'],
        ['content-length', '3'],
      ]),
      fc.constant<Array<[string, string]>>([
        ['content-length', '3'],
        ['transfer-encoding', 'chunked'],
      ]),
      fc.constant<Array<[string, string]>>([['transfer-encoding', 'chunked, identity']]),
      fc.constant<Array<[string, string]>>([['transfer-encoding', 'gzip']]),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...hostile.routes), framing, async (route, headers) => {
        const path = hostile.fillPath(route);
        const answer = await rawRequest(
          hostile.port,
          requestBytes(
            route.method,
            path,
            [...hostile.rawCredentials(route), ...headers],
            '{"name":"Jane Doe"}',
          ),
        );
        expectHandled(answer, `${route.method} ${path} ${JSON.stringify(headers)}`, route.method, '/');
        expect(answer.status).toBe(400);
      }),
      runs(40),
    );
  });

  it('answers control characters in header names and values with a 400 problem', async () => {
    const control = fc.integer({ min: 0, max: 0x1f }).filter((c) => c !== 0x09 && c !== 0x0a && c !== 0x0d);
    const placement = fc.record({
      code: fc.oneof(control, fc.constant(0x7f)),
      where: fc.constantFrom('value', 'name'),
    });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...hostile.routes), placement, async (route, { code, where }) => {
        const c = String.fromCharCode(code);
        const header: [string, string] = where === 'name' ? [`x-a${c}b`, 'v'] : ['x-note', `a${c}b`];
        const path = hostile.fillPath(route);
        const answer = await rawRequest(
          hostile.port,
          requestBytes(route.method, path, [...hostile.rawCredentials(route), header]),
        );
        expectHandled(answer, `${route.method} ${path} ${JSON.stringify(header)}`, route.method, '/');
        expect(answer.status).toBe(400);
      }),
      runs(40),
    );
  });

  it('answers headers over 16 KB with a 431 problem, and obs-text bytes in any header as usual', async () => {
    for (const header of [
      ['x-big', 'a'.repeat(20_000)],
      ['authorization', `Bearer ${'a'.repeat(20_000)}`],
    ] as Array<[string, string]>) {
      const answer = await rawRequest(hostile.port, requestBytes('GET', '/v1/usage', [header]));
      expectHandled(answer, header[0], 'GET', '/v1/usage');
      expect(answer.status).toBe(431);
    }
    const long = await rawRequest(hostile.port, requestBytes('GET', `/v1/usage?q=${'a'.repeat(20_000)}`, []));
    expect(long.status).toBe(431);
    // Bytes 0x80-0xff (obs-text) pass the parser; control characters are the test above's.
    const obsText = invalidUtf8.filter((bytes) => bytes.every((b) => b >= 0x80));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...hostile.routes), obsText, async (anyRoute, bytes) => {
        const path = hostile.fillPath(anyRoute);
        const answer = await rawRequest(
          hostile.port,
          requestBytes(anyRoute.method, path, [
            ['authorization', Buffer.concat([Buffer.from('Bearer cs_live_'), bytes])],
            ['x-note', bytes],
          ]),
        );
        expectHandled(answer, `${anyRoute.method} ${path} ${bytes.toString('hex')}`, anyRoute.method, path);
        if (anyRoute.auth !== 'none') expect(answer.status).toBe(401);
      }),
      runs(30),
    );
  });

  it('answers bytes that are not UTF-8 in a body or a path (raw HTTP) with a problem or as text', async () => {
    const bodied = hostile.routes.filter((r) => !['GET', 'HEAD'].includes(r.method));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...bodied),
        invalidUtf8,
        fc.constantFrom('application/json', 'text/csv'),
        async (route, bytes, type) => {
          const body = Buffer.concat([Buffer.from('{"name":"a'), bytes, Buffer.from('"}')]);
          const path = hostile.fillPath(route);
          const answer = await rawRequest(
            hostile.port,
            requestBytes(
              route.method,
              path,
              [
                ...hostile.rawCredentials(route),
                ['content-type', type],
                ['content-length', String(body.length)],
              ],
              body,
            ),
          );
          expectHandled(answer, `${route.method} ${path} ${bytes.toString('hex')}`, route.method, path);
        },
      ),
      runs(40),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...hostile.routes), invalidUtf8, async (route, bytes) => {
        // The bytes go where the route's parameters are, or into the query string of a route without any.
        const filled = hostile.fillPath(route, () => '\u0000');
        const path = filled.includes('\u0000') ? filled : `${filled}?q=\u0000`;
        const target = Buffer.concat(
          path
            .split('\u0000')
            .flatMap((part, i) =>
              i === 0 ? [Buffer.from(part, 'latin1')] : [bytes, Buffer.from(part, 'latin1')],
            ),
        );
        const answer = await rawRequest(
          hostile.port,
          requestBytes(route.method, target, hostile.rawCredentials(route)),
        );
        expectHandled(answer, `${route.method} ${target.toString('hex')}`, route.method, route.url);
      }),
      runs(40),
    );
  });

  it('leaves Object.prototype unpolluted and the server listening and healthy', async () => {
    expectUnpolluted(prototypes);
    await expectHealthy(hostile);
  });
});
