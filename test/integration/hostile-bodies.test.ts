import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BATCH_BODY_LIMIT_BYTES } from '../../src/screening/batches/batch-policy.js';
import { MONITOR_IMPORT_BODY_LIMIT_BYTES } from '../../src/screening/monitoring/monitoring-policy.js';

const LARGE_BODY_LIMITS: Record<string, number> = {
  '/v1/screen/batch': BATCH_BODY_LIMIT_BYTES,
  '/v1/monitors/import': MONITOR_IMPORT_BODY_LIMIT_BYTES,
};

import { backends } from '../support/backends.js';
import {
  expectHealthy,
  expectUnpolluted,
  HostileApi,
  injectHostile,
  injectRefusedLeavesNoTrace,
  isDashboardPage,
  prototypeSnapshot,
  runs,
} from '../support/hostile-app.js';
import { deepNesting, hostileBody, hostileCsv, hostileString, nested } from '../support/hostile-inputs.js';
import { bodyFieldNames, type RecordedRoute } from '../support/route-table.js';

const recorded = vi.hoisted(() => [] as RecordedRoute[]);
vi.mock('fastify', async (importOriginal) => {
  const { recordingFastify } = await import('../support/route-table.js');
  return recordingFastify(await importOriginal(), recorded);
});

/** Routes that read a request body. */
const takesBody = (route: RecordedRoute) => !['GET', 'HEAD', 'OPTIONS'].includes(route.method);
/** Routes of the API (the dashboard's pages send a signed-out browser to sign in before reading anything). */
const ofApi = (route: RecordedRoute) => !isDashboardPage(route.url);
/** Routes whose body has a schema: a body of any other shape is refused. */
const validatesBody = (route: RecordedRoute) => ofApi(route) && bodyFieldNames(route).length > 0;

// Each test walks every route of the app (hundreds of requests): far past one request's 30 s when
// the machine is busy with the other test files.
describe.each(backends())('hostile request bodies ($name)', { timeout: 120_000 }, (backend) => {
  let hostile: HostileApi;
  const prototypes = prototypeSnapshot();
  beforeAll(async () => {
    hostile = await HostileApi.start(backend, recorded);
  });
  afterAll(async () => hostile?.close());

  const send = (route: RecordedRoute, contentType: string | undefined, payload: string | Buffer) =>
    injectRefusedLeavesNoTrace(hostile, {
      method: route.method,
      url: hostile.bodyTarget(route),
      headers: {
        ...hostile.credentials(route),
        ...(contentType !== undefined ? { 'content-type': contentType } : {}),
      },
      payload,
    });

  it('enumerates every route of the app, the known resources among them', () => {
    hostile.expectCompleteRouteTable();
    expect(hostile.routes.filter(validatesBody).length).toBeGreaterThanOrEqual(7);
  });

  it('answers hostile JSON on every route that reads a body with a problem, and a refusal changes nothing', async () => {
    for (const route of hostile.routes.filter(takesBody)) {
      await fc.assert(
        fc.asyncProperty(hostileBody(bodyFieldNames(route)), async (body) => {
          await send(route, body.contentType, body.payload);
        }),
        runs(20),
      );
    }
  });

  it('answers 10,000 levels of nesting with a 4xx problem on every route that reads a body', async () => {
    for (const route of hostile.routes.filter(takesBody)) {
      for (const shape of ['arrays', 'objects', 'proto at the bottom', 'inside a field']) {
        const answer = await send(route, 'application/json', nested(10_000, shape));
        if (validatesBody(route))
          expect(answer.status, `${route.method} ${route.url} ${shape}`).toBeGreaterThanOrEqual(400);
      }
    }
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...hostile.routes.filter(takesBody)),
        deepNesting,
        async (route, body) => {
          await send(route, body.contentType, body.payload);
        },
      ),
      runs(20),
    );
  });

  it('answers a 10 MB body with 413 before reading it, on every API route that reads a body', async () => {
    const tenMegabytes = JSON.stringify({ name: 'x'.repeat(10 * 1024 * 1024) });
    for (const route of hostile.routes.filter(takesBody).filter(ofApi)) {
      // The routes taking lists of parties have limits of their own; past them they answer 413 too.
      const own = LARGE_BODY_LIMITS[route.url];
      const payload = own ? JSON.stringify({ items: 'x'.repeat(own) }) : tenMegabytes;
      const answer = await send(route, 'application/json', payload);
      expect(answer.status, `${route.method} ${route.url}`).toBe(413);
    }
  });

  it('refuses prototype keys in a body and lets none of them reach Object.prototype', async () => {
    for (const route of hostile.routes.filter(takesBody).filter(ofApi)) {
      for (const key of ['__proto__', 'constructor']) {
        const text = `{"${key}":{"prototype":{"polluted":"yes"},"polluted":"yes"},"name":"Jane"}`;
        const answer = await send(route, 'application/json', text);
        expect(answer.status, `${route.method} ${route.url} ${key}`).toBe(400);
      }
    }
    expectUnpolluted(prototypes);
  });

  it('reads hostile CSV batches as a 4xx problem, or queues them whole', async () => {
    const batch = hostile.routes.find((r) => r.method === 'POST' && r.url === '/v1/screen/batch')!;
    await fc.assert(
      fc.asyncProperty(hostileCsv, async (body) => {
        await send(batch, body.contentType, body.payload);
      }),
      runs(40),
    );
  });

  it('ignores or refuses a hostile body sent to a route that reads none', async () => {
    const readers = hostile.routes.filter((r) => !takesBody(r));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...readers), hostileBody(['name']), async (route, body) => {
        await injectHostile(hostile, {
          method: route.method,
          url: hostile.fillPath(route),
          headers: {
            ...hostile.credentials(route),
            ...(body.contentType ? { 'content-type': body.contentType } : {}),
          },
          payload: body.payload,
        });
      }),
      runs(40),
    );
  });

  it('stores hostile text that it accepts exactly as it returns it', async () => {
    // Names that pass validation come back as sent (after trimming), whatever their characters.
    await fc.assert(
      fc.asyncProperty(hostileString, async (name) => {
        const answer = await injectHostile(hostile, {
          method: 'POST',
          url: '/v1/keys',
          headers: { authorization: `Bearer ${hostile.main.key}`, 'content-type': 'application/json' },
          payload: JSON.stringify({ name }),
        });
        // Lone surrogates cannot be stored as UTF-8: they come back as U+FFFD, as any UTF-8 encoder writes them.
        const wellFormed = Buffer.from(name.trim(), 'utf8').toString('utf8');
        if (answer.status === 201) expect(JSON.parse(answer.body).name).toBe(wellFormed);
      }),
      runs(20),
    );
  });

  it('leaves Object.prototype unpolluted and the service answering its health check', async () => {
    expectUnpolluted(prototypes);
    await expectHealthy(hostile);
  });
});
