import { afterAll, beforeAll, expect, it } from 'vitest';
import { backends } from '../support/backends.js';
import { describeWithRealLists } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

/**
 * What makes a risk level trustworthy, through the API on the whole official lists: typed queries,
 * the bonus only for one party named by two authorities, look-alike letters, damaged list text.
 * Matching does not depend on the database, so one backend (the embedded default) is enough.
 */
const LISTS = 'ofac_sdn,ofac_cons,un_sc,eu_fsf,uk_fcdo,us_csl';

interface ApiFlag {
  source: string;
  match_score: number;
  details: {
    source_id: string;
    kind: string;
    kind_mismatch: boolean;
    matched_name: string;
    party?: string;
    match_explanation: { penalties: { reason: string }[] };
  };
}

describeWithRealLists('alert precision on the official lists', (listsDir) => {
  let api: TestApp;
  let key: string;

  beforeAll(async () => {
    api = await TestApp.start(backends()[0]!, { env: { LISTS_DIR: listsDir, LISTS_ENABLED: LISTS } });
    await api.runtime.ctx.lists.settled();
    ({ key } = await api.createAccount('enterprise'));
  }, 180_000);
  afterAll(async () => {
    await api?.close();
  });

  const screen = async (body: unknown) => {
    const response = await api.request('POST', '/v1/screen', { key, body });
    expect(response.status).toBe(200);
    return response.body as { risk_score: number; risk_level: string; flags: ApiFlag[] };
  };
  const flagOf = (flags: ApiFlag[], source: string, id: string) =>
    flags.find((f) => f.source === source && f.details.source_id === id);

  it('matches a typed query against records of its kind (and of no stated kind), others only marked', async () => {
    const asPerson = await screen({ query: 'Hezbollah', type: 'person' });
    expect(asPerson.flags.length).toBeGreaterThan(0);
    for (const flag of asPerson.flags)
      expect(flag.details.kind_mismatch).toBe(!['person', 'unknown'].includes(flag.details.kind));
    expect(asPerson.flags.some((f) => f.details.kind_mismatch && f.match_score <= 0.75)).toBe(true);

    const asOrganisation = await screen({ query: 'Hezbollah', type: 'organization' });
    expect(asOrganisation.flags[0]!.details.matched_name).toBe('HIZBALLAH');
    for (const flag of asOrganisation.flags)
      expect(flag.details.kind_mismatch).toBe(!['organization', 'unknown'].includes(flag.details.kind));

    const anyKind = await screen({ query: 'Hezbollah' });
    const kinds = new Set(anyKind.flags.map((f) => f.details.kind));
    expect(kinds.has('person') && kinds.has('organization')).toBe(true);
  });

  it('adds the bonus when two authorities list one party, and marks their flags as one party', async () => {
    const saddam = await screen({ query: 'Saddam Hussein', type: 'person' });
    const ofac = flagOf(saddam.flags, 'ofac_sdn', '7843')!;
    const un = flagOf(saddam.flags, 'un_sc', '6908048')!;
    expect(ofac.match_score).toBe(1);
    expect(un.details.party).toBe(ofac.details.party);
    expect(saddam).toMatchObject({ risk_score: 70, risk_level: 'high' });
  });

  it('gives no bonus for two authorities listing two different people under the name', async () => {
    // The UN's "Ali Mohammed" was born in the 1990s, OFAC's "Muhammad 'ALI" in 1979 and 1985.
    const result = await screen({ query: 'Mohammed Ali', type: 'person' });
    const un = flagOf(result.flags, 'un_sc', '6908549')!;
    const ofac = flagOf(result.flags, 'ofac_sdn', '22113')!;
    expect(Math.min(un.match_score, ofac.match_score)).toBeGreaterThanOrEqual(0.9);
    expect(un.details.party).not.toBe(ofac.details.party);
    expect(result.risk_score).toBeLessThan(60 + 10);
  });

  it('keeps a common name with a partial match at medium at most', async () => {
    for (const query of ['John Smith', 'Maria Garcia']) {
      const result = await screen({ query, type: 'person' });
      expect(['low', 'medium'], query).toContain(result.risk_level);
    }
    const acme = await screen({ query: 'Acme Trading Ltd', type: 'organization' });
    expect(['low', 'medium']).toContain(acme.risk_level);
    const exact = await screen({ query: 'Vladimir Putin', type: 'person' });
    expect(exact).toMatchObject({ risk_score: 60, risk_level: 'high' });
  });

  it('reads look-alike letters of another script inside a Latin word as the Latin letters', async () => {
    // A Cyrillic Н in HAMAS; Cyrillic Ѕ, а, Н, е, і in Saddam Hussein.
    const hamas = await screen({ query: '\u041dAMAS', type: 'organization' });
    expect(hamas.flags[0]).toMatchObject({ match_score: 1, details: { matched_name: 'HAMAS' } });
    expect(hamas.risk_level).toBe('high');
    const saddam = await screen({ query: '\u0405\u0430dd\u0430m \u041duss\u0435\u0456n', type: 'person' });
    expect(saddam.flags[0]!.details.source_id).toBe('7843');
    expect(saddam.flags[0]!.match_score).toBe(1);
  });

  it('never makes a strong match on list text that lost letters (replacement characters)', async () => {
    // The UN record 111076 holds its Arabic name with two letters replaced by U+FFFD.
    for (const query of ['محمد الله مطيع', 'Mohammed Ali', 'محمد الل مطيع']) {
      const result = await screen({ query, type: 'person' });
      for (const flag of result.flags.filter((f) => f.details.matched_name.includes('\uFFFD'))) {
        expect(flag.match_score, query).toBeLessThanOrEqual(0.6);
        expect(flag.details.match_explanation.penalties.map((p) => p.reason).join()).toMatch(/replacement/);
      }
    }
  });
});
