import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, backends } from '../support/backends.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { ListServer } from '../support/list-server.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

const UN_XML = readFileSync(path.join(FIXTURE_LISTS_DIR, 'consolidated.xml'), 'utf8');
const LISTED = 'Gaston Iyamuremye';
const CHANGED = 'Eric Badege';

/** The UN list with one detail of Eric Badege's record changed, as a new version of the list would. */
function unListWithBadegeChanged(): string {
  const changed = UN_XML.replace(
    /(<DATAID>6907993<\/DATAID>[\s\S]*?<COMMENTS1>)He fled to Rwanda/,
    '$1He fled to Uganda',
  );
  expect(changed).not.toBe(UN_XML);
  return changed;
}

describe.each(backends())('decisions on flags ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let server: ListServer;
  let api: TestApp;

  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
    server = await ListServer.start();
    server.serve('/un/consolidated.xml', { body: UN_XML });
    api = await TestApp.start(backend, {
      env: {
        LISTS_ENABLED: 'un_sc',
        LIST_URL_UN_SC: server.url('/un/consolidated.xml'),
        LISTS_REFRESH_INTERVAL_MINUTES: '0',
      },
    });
    // Loaded at start, though scheduled refreshes are off: the first load always happens.
    expect(api.runtime.ctx.lists.view().lists.get('un_sc')).toBeDefined();
  }, 180_000);
  afterAll(async () => {
    await api?.close();
    await server?.close();
    await drop?.();
  });

  const screen = (key: string, body: Record<string, unknown>) =>
    api.request('POST', '/v1/screen', { key, body: { type: 'person', ...body } });
  const decide = (key: string, screeningId: string, flagId: string, body: unknown) =>
    api.request('POST', `/v1/screen/${screeningId}/flags/${encodeURIComponent(flagId)}/decision`, {
      key,
      body,
    });
  const flagOf = (result: { flags: { details: { name: string } }[] }, name: string): any =>
    result.flags.find((f) => f.details.name.toLowerCase() === name.toLowerCase());

  it('gives every flag an id stable across screenings and the hash of its record', async () => {
    const { key } = await api.createAccount();
    const first = await screen(key, { query: LISTED });
    const second = await screen(key, { query: 'Iyamuremye Gaston', countries: ['RW'] });
    expect(first.status).toBe(200);
    const [a, b] = [flagOf(first.body, LISTED), flagOf(second.body, LISTED)];
    expect(a.id).toMatch(/^un_sc:\S+$/);
    expect(a.id).toBe(`un_sc:${a.details.source_id}`);
    expect(b.id).toBe(a.id);
    expect(a.details.record_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(b.details.record_hash).toBe(a.details.record_hash);
    expect(a.decision).toBeUndefined();
  });

  it('reports a cleared flag with its decision on the next screening of the subject, at low risk', async () => {
    const { key, keyId } = await api.createAccount();
    const first = await screen(key, { query: LISTED, reference: 'cust-1' });
    expect(first.body.reference).toBe('cust-1');
    expect(first.body.risk_level).not.toBe('low');
    const flag = flagOf(first.body, LISTED);

    const decided = await decide(key, first.body.id, flag.id, {
      decision: 'false_positive',
      note: 'Our customer was born in 1990 in Lyon.',
    });
    expect(decided.status).toBe(201);
    expect(decided.body).toMatchObject({
      decision: 'false_positive',
      note: 'Our customer was born in 1990 in Lyon.',
      flag_id: flag.id,
      source: 'un_sc',
      record_hash: flag.details.record_hash,
      reference: 'cust-1',
      screening_id: first.body.id,
      decided_by: { type: 'api_key', id: keyId },
    });

    // The same customer under another spelling: the reference is the subject.
    const again = await screen(key, { query: 'GASTON  IYAMUREMYE', reference: 'cust-1' });
    const cleared = flagOf(again.body, LISTED);
    expect(cleared.decision).toEqual({
      id: decided.body.id,
      value: 'false_positive',
      note: 'Our customer was born in 1990 in Lyon.',
      decided_by: { type: 'api_key', id: keyId },
      decided_at: decided.body.decided_at,
    });
    expect(again.body.risk_score).toBe(0);
    expect(again.body.risk_level).toBe('low');
    // The stored screening says the same.
    const stored = await api.request('GET', `/v1/screen/${again.body.id}`, { key });
    expect(flagOf(stored.body, LISTED).decision.id).toBe(decided.body.id);
    expect(stored.body.risk_level).toBe('low');

    // Another customer with the same name is another subject.
    const other = await screen(key, { query: LISTED, reference: 'cust-2' });
    expect(flagOf(other.body, LISTED).decision).toBeUndefined();
    expect(other.body.risk_score).toBe(first.body.risk_score);
  });

  it("applies a decision to a batch item whose reference is the subject's", async () => {
    const { key } = await api.createAccount();
    const first = await screen(key, { query: LISTED, reference: 'batch-cust' });
    const flag = flagOf(first.body, LISTED);
    expect(
      (await decide(key, first.body.id, flag.id, { decision: 'false_positive', note: 'known' })).status,
    ).toBe(201);
    const items = [
      { query: LISTED, type: 'person', reference: 'batch-cust' },
      { query: LISTED, type: 'person', reference: 'batch-other' },
    ];
    const queued = await api.request('POST', '/v1/screen/batch', { key, body: { items } });
    expect(queued.status).toBe(202);
    await api.runtime.batchWork.settle();
    const done = await api.request('GET', `/v1/screen/batch/${queued.body.id}`, { key });
    const [cleared, other] = done.body.results;
    expect(cleared).toMatchObject({
      reference: 'batch-cust',
      status: 'completed',
      risk_level: 'low',
      risk_score: 0,
    });
    expect(other).toMatchObject({
      reference: 'batch-other',
      status: 'completed',
      risk_score: first.body.risk_score,
    });
    const stored = await api.request('GET', `/v1/screen/${cleared.screening_id}`, { key });
    expect(flagOf(stored.body, LISTED).decision.value).toBe('false_positive');
  });

  it('without a reference, holds a decision for the same query and facts only', async () => {
    const { key } = await api.createAccount();
    const first = await screen(key, { query: LISTED, date_of_birth: '1990' });
    const flag = flagOf(first.body, LISTED);
    expect(
      (await decide(key, first.body.id, flag.id, { decision: 'false_positive', note: 'born 1990' })).status,
    ).toBe(201);
    const same = await screen(key, { query: `  ${LISTED.toUpperCase()} `, date_of_birth: '1990' });
    expect(flagOf(same.body, LISTED).decision.value).toBe('false_positive');
    const otherFacts = await screen(key, { query: LISTED, date_of_birth: '1962' });
    expect(flagOf(otherFacts.body, LISTED).decision).toBeUndefined();
    expect(otherFacts.body.risk_level).not.toBe('low');
  });

  // On the embedded database which subjects have decisions is remembered (DecidedSubjects): reads
  // of it racing with the decision must not leave a screening that starts after the answer without it.
  it('applies a decision to every screening started after its answer, with others of the account in flight', async () => {
    const { key } = await api.createAccount();
    const first = await screen(key, { query: LISTED, reference: 'raced' });
    const flag = flagOf(first.body, LISTED);
    const others = Array.from({ length: 6 }, (_, i) =>
      screen(key, { query: LISTED, reference: `raced-other-${i}` }),
    );
    const decided = await decide(key, first.body.id, flag.id, { decision: 'false_positive', note: 'raced' });
    expect(decided.status).toBe(201);
    const after = await screen(key, { query: `${LISTED} `, reference: 'raced' });
    expect(flagOf(after.body, LISTED).decision.id).toBe(decided.body.id);
    for (const other of await Promise.all(others)) {
      expect(other.status).toBe(200);
      expect(flagOf(other.body, LISTED).decision).toBeUndefined();
    }
    // Withdrawn while others are in flight: the next screening of the subject applies nothing.
    const more = Array.from({ length: 6 }, (_, i) =>
      screen(key, { query: LISTED, reference: `raced-more-${i}` }),
    );
    expect((await api.request('DELETE', `/v1/decisions/${decided.body.id}`, { key })).status).toBe(204);
    const withdrawn = await screen(key, { query: ` ${LISTED}`, reference: 'raced' });
    expect(flagOf(withdrawn.body, LISTED).decision).toBeUndefined();
    await Promise.all(more);
  });

  it('keeps the risk of a flag confirmed as a true match', async () => {
    const { key } = await api.createAccount();
    const first = await screen(key, { query: LISTED, reference: 'cust-tm' });
    const flag = flagOf(first.body, LISTED);
    const decided = await decide(key, first.body.id, flag.id, {
      decision: 'true_match',
      note: 'Confirmed by passport.',
    });
    expect(decided.status).toBe(201);
    const again = await screen(key, { query: LISTED, reference: 'cust-tm' });
    expect(flagOf(again.body, LISTED).decision.value).toBe('true_match');
    expect(again.body.risk_score).toBe(first.body.risk_score);
    expect(again.body.risk_level).toBe(first.body.risk_level);
  });

  it('keeps one standing decision when several are taken on one record at once', async () => {
    const { key } = await api.createAccount();
    const first = await screen(key, { query: LISTED, reference: 'cust-race' });
    const flag = flagOf(first.body, LISTED);
    const taken = await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        decide(key, first.body.id, flag.id, { decision: 'false_positive', note: `Double click ${n}.` }),
      ),
    );
    expect(taken.map((r) => r.status)).toEqual(Array(8).fill(201));
    const standing = await api.request('GET', '/v1/decisions?reference=cust-race', { key });
    expect(standing.body.data).toHaveLength(1);
  });

  it("never shows or applies another account's decisions, screenings or flags", async () => {
    const owner = await api.createAccount();
    const other = await api.createAccount();
    const first = await screen(owner.key, { query: LISTED, reference: 'shared-ref' });
    const flag = flagOf(first.body, LISTED);

    expect(
      (await decide(other.key, first.body.id, flag.id, { decision: 'false_positive', note: 'x' })).status,
    ).toBe(404);
    const decided = await decide(owner.key, first.body.id, flag.id, {
      decision: 'false_positive',
      note: 'not him',
    });
    expect(decided.status).toBe(201);

    const theirs = await screen(other.key, { query: LISTED, reference: 'shared-ref' });
    expect(flagOf(theirs.body, LISTED).decision).toBeUndefined();
    expect(theirs.body.risk_score).toBe(first.body.risk_score);
    expect((await api.request('GET', '/v1/decisions', { key: other.key })).body.data).toEqual([]);
    expect((await api.request('DELETE', `/v1/decisions/${decided.body.id}`, { key: other.key })).status).toBe(
      404,
    );
    const mine = await api.request('GET', '/v1/decisions', { key: owner.key });
    expect(mine.body.data.map((d: { id: string }) => d.id)).toEqual([decided.body.id]);
  });

  it('gives the flags of a screening stored before flag ids their ids, and takes no decision on it', async () => {
    const { key, account, keyId } = await api.createAccount();
    const live = await screen(key, { query: LISTED });
    const flag = flagOf(live.body, LISTED);
    const { id: _, decision: __, ...before } = flag;
    const { reference: ___, ...result } = { ...live.body, id: randomUUID(), flags: [before] };
    delete result.cache_hit;
    await api.runtime.ctx.db
      .insertInto('screenings')
      .values({
        id: result.id,
        account_id: account.id,
        key_id: keyId,
        entity: result.entity,
        query_type: 'person',
        request_options: '{}',
        result: JSON.stringify(result),
        source_errors: '[]',
        source_versions: '{}',
        risk_score: result.risk_score,
        risk_level: result.risk_level,
        created_at: new Date(result.timestamp),
      })
      .execute();
    const stored = await api.request('GET', `/v1/screen/${result.id}`, { key });
    expect(stored.status).toBe(200);
    expect(stored.body.flags[0].id).toBe(flag.id);
    expect(stored.body.flags[0].details.record_hash).toBe(flag.details.record_hash);
    const refused = await decide(key, result.id, flag.id, { decision: 'false_positive', note: 'old' });
    expect(refused.status).toBe(404);
  });

  it('answers 404 for an unknown screening or flag and 422 for a missing or overlong note', async () => {
    const { key } = await api.createAccount();
    const first = await screen(key, { query: LISTED });
    const flag = flagOf(first.body, LISTED);
    const ok = { decision: 'false_positive', note: 'fine' };
    expect((await decide(key, '00000000-0000-4000-8000-000000000000', flag.id, ok)).status).toBe(404);
    expect((await decide(key, 'not-a-uuid', flag.id, ok)).status).toBe(404);
    expect((await decide(key, first.body.id, 'un_sc:nothing', ok)).status).toBe(404);

    const noNote = await decide(key, first.body.id, flag.id, { decision: 'false_positive' });
    expect(noNote.status).toBe(422);
    const blank = await decide(key, first.body.id, flag.id, { decision: 'false_positive', note: '   ' });
    expect(blank.status).toBe(422);
    expect(blank.body.errors).toEqual([expect.objectContaining({ pointer: '/note' })]);
    const long = await decide(key, first.body.id, flag.id, {
      decision: 'false_positive',
      note: 'é'.repeat(2001),
    });
    expect(long.status).toBe(422);
    const bad = await decide(key, first.body.id, flag.id, { decision: 'maybe', note: 'x' });
    expect(bad.status).toBe(422);
    expect((await decide(key, first.body.id, flag.id, { ...ok, note: 'é'.repeat(2000) })).status).toBe(201);

    const longRef = await screen(key, { query: LISTED, reference: 'r'.repeat(101) });
    expect(longRef.status).toBe(422);
    expect(longRef.body.errors).toEqual([expect.objectContaining({ pointer: '/reference' })]);
  });

  it('never answers from the cache with decisions older than the latest one for the subject', async () => {
    const { key } = await api.createAccount();
    const body = { query: LISTED, reference: 'cached' };
    const first = await screen(key, body);
    expect((await screen(key, body)).body.cache_hit).toBe(true);

    const flag = flagOf(first.body, LISTED);
    const decided = await decide(key, first.body.id, flag.id, {
      decision: 'false_positive',
      note: 'cleared',
    });
    const afterDecision = await screen(key, body);
    expect(flagOf(afterDecision.body, LISTED).decision.id).toBe(decided.body.id);
    expect(afterDecision.body.risk_level).toBe('low');
    const cachedAgain = await screen(key, body);
    expect(cachedAgain.body.cache_hit).toBe(true);
    expect(flagOf(cachedAgain.body, LISTED).decision.id).toBe(decided.body.id);

    // A new decision supersedes the standing one.
    const confirmed = await decide(key, afterDecision.body.id, flag.id, {
      decision: 'true_match',
      note: 'after all',
    });
    const afterConfirm = await screen(key, body);
    expect(flagOf(afterConfirm.body, LISTED).decision.id).toBe(confirmed.body.id);
    expect(afterConfirm.body.risk_score).toBe(first.body.risk_score);
    const standing = await api.request('GET', '/v1/decisions?reference=cached', { key });
    expect(standing.body.data.map((d: { id: string }) => d.id)).toEqual([confirmed.body.id]);

    expect((await api.request('DELETE', `/v1/decisions/${confirmed.body.id}`, { key })).status).toBe(204);
    expect((await api.request('DELETE', `/v1/decisions/${confirmed.body.id}`, { key })).status).toBe(404);
    const afterWithdrawal = await screen(key, body);
    expect(flagOf(afterWithdrawal.body, LISTED).decision).toBeUndefined();
    expect(afterWithdrawal.body.risk_score).toBe(first.body.risk_score);
  });

  it('lists standing decisions newest first, filtered and paged, and audits each decision and withdrawal', async () => {
    const { key } = await api.createAccount();
    const made: string[] = [];
    for (const reference of ['list-a', 'list-b', 'list-c']) {
      const result = await screen(key, { query: LISTED, reference });
      const flag = flagOf(result.body, LISTED);
      const decision = reference === 'list-b' ? 'true_match' : 'false_positive';
      made.push((await decide(key, result.body.id, flag.id, { decision, note: reference })).body.id);
    }
    const all = await api.request('GET', '/v1/decisions', { key });
    expect(all.body.data.map((d: { id: string }) => d.id)).toEqual([...made].reverse());
    const page1 = await api.request('GET', '/v1/decisions?limit=2', { key });
    expect(page1.body.data).toHaveLength(2);
    const page2 = await api.request('GET', `/v1/decisions?limit=2&cursor=${page1.body.next_cursor}`, { key });
    expect(page2.body.data.map((d: { id: string }) => d.id)).toEqual([made[0]]);
    expect(page2.body.next_cursor).toBeNull();
    const matches = await api.request('GET', '/v1/decisions?decision=true_match&source=un_sc', { key });
    expect(matches.body.data.map((d: { reference: string }) => d.reference)).toEqual(['list-b']);
    expect((await api.request('GET', '/v1/decisions?source=ofac_sdn', { key })).body.data).toEqual([]);
    expect((await api.request('GET', '/v1/decisions?cursor=abc', { key })).status).toBe(422);

    expect((await api.request('DELETE', `/v1/decisions/${made[0]}`, { key })).status).toBe(204);
    await api.runtime.ctx.audit.flush();
    const audit = await api.request('GET', '/v1/audit?limit=100', { key });
    // Each request's row, and the row of the change it made (chained with it).
    const rows = audit.body.data.filter((r: { method: string; route: string }) =>
      /^(POST|DELETE) .*\/decision/.test(`${r.method} ${r.route}`),
    );
    const requests = rows.filter((r: { status: number | null }) => r.status !== null);
    expect(
      requests.map(
        (r: { method: string; route: string; status: number }) => `${r.method} ${r.route} ${r.status}`,
      ),
    ).toEqual([
      'DELETE /v1/decisions/:id 204',
      'POST /v1/screen/:id/flags/:flag_id/decision 201',
      'POST /v1/screen/:id/flags/:flag_id/decision 201',
      'POST /v1/screen/:id/flags/:flag_id/decision 201',
    ]);
    const changes = rows.filter((r: { action: string | null }) => r.action !== null);
    expect(changes.map((r: { action: string; record_id: string }) => `${r.action} ${r.record_id}`)).toEqual([
      `decision.withdrawn ${made[0]}`,
      ...[...made].reverse().map((id) => `decision.created ${id}`),
    ]);
    expect(changes.map((r: { request_id: string }) => r.request_id)).toEqual(
      requests.map((r: { request_id: string }) => r.request_id),
    );
  });

  it('applies a decision no longer once the list changes the record, and says what it was', async () => {
    const { key } = await api.createAccount();
    const first = await screen(key, { query: CHANGED, reference: 'cust-changed' });
    const flag = flagOf(first.body, CHANGED);
    const decided = await decide(key, first.body.id, flag.id, {
      decision: 'false_positive',
      note: 'not him',
    });
    expect(
      flagOf((await screen(key, { query: CHANGED, reference: 'cust-changed' })).body, CHANGED).decision.id,
    ).toBe(decided.body.id);

    server.serve('/un/consolidated.xml', { body: unListWithBadegeChanged() });
    const refreshed = await api.admin('POST', '/admin/v1/lists/un_sc/refresh');
    expect(refreshed.body.outcome).toBe('accepted');

    const after = await screen(key, { query: CHANGED, reference: 'cust-changed' });
    const changed = flagOf(after.body, CHANGED);
    expect(changed.id).toBe(flag.id);
    expect(changed.details.record_hash).not.toBe(flag.details.record_hash);
    expect(changed.decision).toBeUndefined();
    expect(changed.details.previous_decision).toMatchObject({
      id: decided.body.id,
      value: 'false_positive',
      note: 'not him',
      record_hash: flag.details.record_hash,
    });
    expect(after.body.risk_score).toBe(first.body.risk_score);
  });
});
