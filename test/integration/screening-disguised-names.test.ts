import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, backends } from '../support/backends.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

interface ApiFlag {
  id: string;
  match_score: number;
  details: {
    kind: string;
    kind_mismatch: boolean;
    match_explanation: {
      penalties: { reason: string; factor?: number }[];
      score: number;
      prepared_query: string;
    };
  };
}

/**
 * A listed party screened under a disguise is still found. Customers' data is often mislabelled: a
 * listed party screened with the wrong type is reported when its name matches strongly, marked and
 * lowered, never below `medium`, and the type still keeps weaker matches of other kinds away
 * (docs/matching.md, "Kinds"). A name written letter by letter, or several times over, is the name
 * it spells ("Readings").
 */
describe.each(backends())('a listed party screened under a disguise ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let api: TestApp;
  let key: string;

  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
    api = await TestApp.start(backend, { env: { LISTS_DIR: FIXTURE_LISTS_DIR, LISTS_ENABLED: 'ofac_sdn' } });
    await api.runtime.ctx.lists.settled();
    ({ key } = await api.createAccount('enterprise'));
  }, 180_000);
  afterAll(async () => {
    await api?.close();
    await drop?.();
  });

  const screen = async (body: unknown) => {
    const response = await api.request('POST', '/v1/screen', { key, body });
    expect(response.status).toBe(200);
    return response.body as { risk_score: number; risk_level: string; complete: boolean; flags: ApiFlag[] };
  };

  it.each([
    ['Robert Gabriel Mugabe', 'organization', 'ofac_sdn:7480', 'person'],
    ['Bank Markazi Jomhouri Islami Iran', 'person', 'ofac_sdn:4632', 'organization'],
    ['Lazarus Group', 'vessel', 'ofac_sdn:27307', 'organization'],
    ['Mar Azul', 'person', 'ofac_sdn:4238', 'vessel'],
  ])('a wrong type: %s as %s is reported, marked, explained and at medium', async (query, type, id, kind) => {
    const result = await screen({ query, type });
    const flag = result.flags.find((f) => f.id === id)!;
    expect(flag, `${query} as ${type}`).toBeDefined();
    expect(flag.match_score).toBe(0.75);
    expect(flag.details).toMatchObject({ kind, kind_mismatch: true });
    expect(flag.details.match_explanation.score).toBe(0.75);
    expect(flag.details.match_explanation.penalties).toContainEqual({
      reason: `the record is of another kind than the query's type (${type})`,
      factor: 0.75,
    });
    expect(result).toMatchObject({ risk_level: 'medium', complete: true });
  });

  it('keeps a weaker match of another kind away, which the right type reports', async () => {
    const asPerson = await screen({ query: 'Robert Mugabe', type: 'person' });
    expect(asPerson.flags.map((f) => f.id)).toContain('ofac_sdn:7480');
    const asOrganisation = await screen({ query: 'Robert Mugabe', type: 'organization' });
    expect(asOrganisation.flags).toEqual([]);
    expect(asOrganisation).toMatchObject({ risk_score: 0, risk_level: 'low' });
  });

  it('leaves a match of the right type, or of an untyped query, unmarked and whole', async () => {
    for (const type of ['person', 'entity']) {
      const result = await screen({ query: 'Robert Gabriel Mugabe', type });
      const flag = result.flags.find((f) => f.id === 'ofac_sdn:7480')!;
      expect(flag).toMatchObject({ match_score: 1, details: { kind_mismatch: false } });
      expect(result.risk_level).toBe('high');
    }
  });

  it.each([
    ['K-i-m J-o-n-g U-n', 'person', 'ofac_sdn:20157', 'KIM JONG UN'],
    ['K.i.m J.o.n.g U.n', 'person', 'ofac_sdn:20157', 'KIM JONG UN'],
    ['Kim Jong Un Kim Jong Un Kim Jong Un', 'person', 'ofac_sdn:20157', 'KIM JONG UN'],
    ['L a z a r u s G r o u p', 'organization', 'ofac_sdn:27307', 'LAZARUSGROUP'],
    ['L-a-z-a-r-u-s G-r-o-u-p', 'organization', 'ofac_sdn:27307', 'LAZARUS GROUP'],
    ['Lazarus Group Lazarus Group', 'organization', 'ofac_sdn:27307', 'LAZARUS GROUP'],
  ])(
    'letter by letter or repeated: %s (%s) is the listed name, at high',
    async (query, type, id, prepared) => {
      const result = await screen({ query, type });
      const flag = result.flags.find((f) => f.id === id)!;
      expect(flag, query).toBeDefined();
      expect(flag.match_score).toBeGreaterThanOrEqual(0.9);
      expect(flag.details.match_explanation.prepared_query).toBe(prepared);
      expect(result.risk_level).toBe('high');
    },
  );
});
