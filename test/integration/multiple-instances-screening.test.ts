import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithSharedBackends } from '../support/backends.js';
import { FakeClock } from '../support/fake-clock.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { ListServer } from '../support/list-server.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

const LISTS_DIR = FIXTURE_LISTS_DIR;
/** The smallest official list of the mirror (five designations): quick to parse, index and store. */
const UK_LIST_FILE = 'UK-Sanctions-List.xml';
const UK_XML = readFileSync(path.join(LISTS_DIR, UK_LIST_FILE), 'utf8');

function unique(label: string): string {
  return `${label} ${randomBytes(4).toString('hex')}`;
}

/** Polls until `check` holds or `withinMs` passes; returns how long it took. */
async function timeUntil(check: () => Promise<boolean>, withinMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < withinMs) {
    if (await check()) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`condition not reached within ${withinMs} ms`);
}

// Three instances sharing one PostgreSQL database (a schema of their own: the lists are shared by
// the whole database) and one Redis, as behind a load balancer.
describeWithSharedBackends('screenings on three instances sharing one database and Redis', (shared) => {
  let instances: TestApp[] = [];
  let drop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const isolated = await isolatedBackend(shared);
    drop = isolated.drop;
    const env = { LISTS_DIR, LISTS_ENABLED: 'uk_fcdo' };
    // The first stores the list; the others load that stored version at start.
    const first = await TestApp.start(isolated.backend, { env });
    instances.push(first);
    await first.runtime.ctx.lists.settled();
    instances.push(
      ...(await Promise.all([
        TestApp.start(isolated.backend, { env }),
        TestApp.start(isolated.backend, { env }),
      ])),
    );
    await Promise.all(instances.map((instance) => instance.runtime.ctx.lists.settled()));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.close()));
    instances = [];
    await drop?.();
  });

  it('admits exactly the quota left when one account screens concurrently on three instances', async () => {
    const [first] = instances as [TestApp];
    const { key, account } = await first.createAccount('starter');
    const month = `${new Date().toISOString().slice(0, 7)}-01`;
    await first.runtime.ctx.db
      .insertInto('usage_counters')
      .values({ account_id: account.id, month, count: 490 })
      .execute();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        instances[i % instances.length]!.request('POST', '/v1/screen', {
          key,
          body: { query: unique(`Quota Holdings ${i}`) },
        }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array(10).fill(200), ...Array(20).fill(402)]);
    for (const refused of answers.filter((a) => a.status === 402))
      expect(refused.body.type).toBe('/problems/quota-exceeded');
    const counter = await first.runtime.ctx.db
      .selectFrom('usage_counters')
      .select('count')
      .where('account_id', '=', account.id)
      .where('month', '=', month)
      .executeTakeFirstOrThrow();
    expect(Number(counter.count)).toBe(500);
    const stored = await first.runtime.ctx.db
      .selectFrom('screenings')
      .select('id')
      .where('account_id', '=', account.id)
      .execute();
    expect(stored.map((row) => row.id).sort()).toEqual(
      answers
        .filter((a) => a.status === 200)
        .map((a) => a.body.id)
        .sort(),
    );
  });

  it('reads on every instance, by its id, a screening answered by another', async () => {
    const [first, second, third] = instances as [TestApp, TestApp, TestApp];
    const { key } = await first.createAccount();
    const answered = await second.request('POST', '/v1/screen', { key, body: { query: 'BNK UK Limited' } });
    expect(answered.status).toBe(200);
    expect(answered.body.sources_matched).toEqual(['uk_fcdo']);
    for (const instance of [first, third]) {
      const read = await instance.request('GET', `/v1/screen/${answered.body.id}`, { key });
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({
        id: answered.body.id,
        risk_score: answered.body.risk_score,
        risk_level: answered.body.risk_level,
        flags: answered.body.flags,
      });
    }
  });

  it('answers a repeated query on another instance from the shared cache, with the original id', async () => {
    const [first, second, third] = instances as [TestApp, TestApp, TestApp];
    const { key } = await first.createAccount();
    const body = { query: unique('Cached Trading'), type: 'entity' };
    const live = await first.request('POST', '/v1/screen', { key, body });
    expect(live.status).toBe(200);
    expect(live.body.cache_hit).toBe(false);
    // The answer does not wait for the cache write; the instance that sent it reads it back first
    // (one Redis connection, in order), so it has reached Redis before the others are asked.
    expect((await first.request('POST', '/v1/screen', { key, body })).body.cache_hit).toBe(true);
    for (const instance of [second, third]) {
      const repeated = await instance.request('POST', '/v1/screen', { key, body });
      expect(repeated.status).toBe(200);
      expect(repeated.body).toMatchObject({ cache_hit: true, id: live.body.id });
    }
  });
});

describeWithSharedBackends('list refresh on three instances', (shared) => {
  let instances: TestApp[] = [];
  let server: ListServer;
  let drop: (() => Promise<void>) | undefined;
  // One clock for the three instances, so the test can make the next scheduled refresh due at once.
  const clock = new FakeClock(new Date());
  const LIST_PATH = `/uk/${UK_LIST_FILE}`;

  beforeAll(async () => {
    server = await ListServer.start();
    server.serve(LIST_PATH, { body: UK_XML });
    const isolated = await isolatedBackend(shared);
    drop = isolated.drop;
    const env = {
      LISTS_ENABLED: 'uk_fcdo',
      LIST_URL_UK_FCDO: server.url(LIST_PATH),
      LISTS_REFRESH_INTERVAL_MINUTES: '60',
    };
    // Started together: each finds the list due and tries to refresh it at start.
    instances = await Promise.all(
      Array.from({ length: 3 }, () => TestApp.start(isolated.backend, { env, clock })),
    );
    await Promise.all(instances.map((instance) => instance.runtime.ctx.lists.settled()));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.close()));
    instances = [];
    await server?.close();
    await drop?.();
  });

  async function versions(): Promise<(string | null)[]> {
    return Promise.all(
      instances.map(async (instance) => {
        const lists = await instance.admin('GET', '/admin/v1/lists');
        return lists.body.data.find((list: { id: string }) => list.id === 'uk_fcdo')?.version ?? null;
      }),
    );
  }

  it('refreshes the lists on one instance only, and every instance serves the new version within 10 s', async () => {
    // At start the list was due on all three; one downloaded it, the others loaded its version.
    expect(server.requests.filter((r) => r.path === LIST_PATH)).toHaveLength(1);
    await timeUntil(async () => {
      const loaded = await versions();
      return loaded[0] !== null && loaded.every((version) => version === loaded[0]);
    }, 10_000);
    const [before] = await versions();

    // A new publication: one designation renamed. Then the hour passes and the refresh is due.
    server.serve(LIST_PATH, {
      body: UK_XML.replace('<Name6>Petrel 8</Name6>', '<Name6>Quillwort Seventeen</Name6>'),
    });
    const asked = server.requests.length;
    clock.advance(61 * 60_000);
    const took = await timeUntil(async () => {
      const now = await versions();
      return now.every((version) => version !== null && version !== before);
    }, 10_000);
    expect(took).toBeLessThan(10_000);
    expect(new Set(await versions()).size).toBe(1);
    // Every instance found it due; exactly one of them asked the publisher.
    expect(server.requests.slice(asked).filter((r) => r.path === LIST_PATH)).toHaveLength(1);
    for (const instance of instances) {
      const { key } = await instance.createAccount();
      const screened = await instance.request('POST', '/v1/screen', {
        key,
        body: { query: 'Quillwort Seventeen' },
      });
      expect(screened.body.sources_matched).toEqual(['uk_fcdo']);
    }
  }, 60_000);
});
