import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../support/backends.js';
import { describeWithRealLists } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

/**
 * A birth date, countries and identifiers confirm or rule out a match, through the API. The
 * validation runs on the embedded default without any list; the matching on the whole lists.
 */
interface ApiFlag {
  source: string;
  match_score: number;
  details: {
    source_id: string;
    matched_name: string;
    match_explanation: { method: string; secondary?: { field: string; outcome: string; effect: string }[] };
  };
}

describe('structured screening: the facts given are checked', () => {
  let api: TestApp;
  let key: string;
  beforeAll(async () => {
    api = await TestApp.start(backends()[0]!);
    ({ key } = await api.createAccount('enterprise'));
  });
  afterAll(async () => {
    await api?.close();
  });

  it.each([
    [{ query: 'Some Name', date_of_birth: '1990-13-01' }, '/date_of_birth'],
    [{ query: 'Some Name', date_of_birth: '1990-02-30' }, '/date_of_birth'],
    [{ query: 'Some Name', date_of_birth: '90-01-01' }, '/date_of_birth'],
    [{ query: 'Some Name', date_of_birth: '2999' }, '/date_of_birth'],
    [{ query: 'Some Name', countries: ['IQ', 'QQ'] }, '/countries/1'],
    [{ query: 'Some Name', countries: ['EU'] }, '/countries/0'],
    [
      { query: 'Some Name', identifiers: [{ type: 'passport', value: 'A1', country: 'XX' }] },
      '/identifiers/0/country',
    ],
    [{ query: 'Some Name', identifiers: [{ type: 'passport', value: '   ' }] }, '/identifiers/0/value'],
    [{ query: 'Some Name', identifiers: [{ type: 'shoe_size', value: '42' }] }, '/identifiers/0/type'],
    [{ identifiers: [{ type: 'imo', value: '740678' }] }, '/identifiers/0/value'],
    [
      { query: 'Artavil', type: 'vessel', identifiers: [{ type: 'imo', value: '9187628' }] },
      '/identifiers/0/value',
    ],
    [{ identifiers: [{ type: 'mmsi', value: '27338542' }] }, '/identifiers/0/value'],
    [{ identifiers: [{ type: 'bic', value: 'HA' }] }, '/identifiers/0/value'],
    [{ identifiers: [{ type: 'lei', value: '253400JT3MQWNDKMJE45' }] }, '/identifiers/0/value'],
    [{ identifiers: [{ type: 'crypto_wallet', value: '1Gq' }] }, '/identifiers/0/value'],
    [{ identifiers: [{ type: 'call_sign', value: 'AB' }] }, '/identifiers/0/value'],
    [
      {
        query: 'Some Name',
        identifiers: [
          { type: 'passport', value: 'A1' },
          { type: 'passport', value: '\u200b\u00ad' },
        ],
      },
      '/identifiers/1/value',
    ],
    [{ query: 'Some Name', countries: Array.from({ length: 11 }, () => 'IQ') }, '/countries'],
    [{ type: 'person', date_of_birth: '1990' }, '/query'],
  ])('refuses %j with a 422 pointing at %s, and counts nothing', async (body, pointer) => {
    const response = await api.request('POST', '/v1/screen', { key, body });
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
    const pointers = (response.body.errors ?? []).map((e: { pointer: string }) => e.pointer);
    expect(
      pointers.some((p: string) => p.startsWith(pointer)),
      JSON.stringify(response.body),
    ).toBe(true);
    expect((await api.request('GET', '/v1/usage', { key })).body.current_month.count).toBe(0);
  });
});

describeWithRealLists('structured screening on the official lists', (listsDir) => {
  let api: TestApp;
  let key: string;

  beforeAll(async () => {
    api = await TestApp.start(backends()[0]!, {
      env: { LISTS_DIR: listsDir, LISTS_ENABLED: 'ofac_sdn,un_sc' },
    });
    await api.runtime.ctx.lists.settled();
    ({ key } = await api.createAccount('enterprise'));
  }, 180_000);
  afterAll(async () => {
    await api?.close();
  });

  const screen = async (body: unknown) => {
    const response = await api.request('POST', '/v1/screen', { key, body });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body as { risk_level: string; cache_hit: boolean; flags: ApiFlag[] };
  };
  const saddam = (flags: ApiFlag[]) =>
    flags.find((f) => f.source === 'ofac_sdn' && f.details.source_id === '7843');

  it('rules a match out with a birth date and a country that contradict the record', async () => {
    const result = await screen({
      query: 'Saddam Hussein',
      type: 'person',
      date_of_birth: '1991-02-03',
      countries: ['BR'],
    });
    const flag = saddam(result.flags)!;
    expect(flag.match_score).toBeLessThan(0.8);
    expect(['low', 'medium']).toContain(result.risk_level);
    expect(flag.details.match_explanation.secondary).toEqual([
      expect.objectContaining({ field: 'date_of_birth', outcome: 'mismatch', effect: 'x0.7' }),
      expect.objectContaining({ field: 'countries', outcome: 'mismatch', effect: 'x0.9' }),
    ]);
  });

  it('confirms a fuzzy match with the record\u2019s own birth date and country', async () => {
    const plain = saddam((await screen({ query: 'Sadam Husein', type: 'person' })).flags)!;
    const confirmed = await screen({
      query: 'Sadam Husein',
      type: 'person',
      date_of_birth: '1937',
      countries: ['iq'],
    });
    const flag = saddam(confirmed.flags)!;
    expect(flag.match_score).toBeGreaterThan(plain.match_score);
    expect(flag.details.match_explanation.secondary?.map((s) => [s.field, s.outcome])).toEqual([
      ['date_of_birth', 'match'],
      ['countries', 'match'],
    ]);
  });

  it('makes a fuzzy match high with the record\u2019s own full birth date', async () => {
    // A one-letter slip in a short Korean syllable: too weak a name alone to be high.
    const own = (flags: ApiFlag[]) =>
      flags.find((f) => f.source === 'un_sc' && f.details.matched_name === 'RI MAN GON');
    const plain = await screen({ query: 'RI MAN GO', type: 'person' });
    expect(own(plain.flags)!.match_score).toBeLessThan(0.8);
    const dated = await screen({ query: 'RI MAN GO', type: 'person', date_of_birth: '1945-10-29' });
    expect(own(dated.flags)!.match_score).toBeGreaterThanOrEqual(0.8);
    expect(dated.risk_level).toBe('high');
    expect(own(dated.flags)!.details.match_explanation.secondary).toEqual([
      expect.objectContaining({ field: 'date_of_birth', outcome: 'match' }),
    ]);
  });

  it('finds a record by a crypto wallet address alone, at 1.0', async () => {
    const result = await screen({
      identifiers: [{ type: 'crypto_wallet', value: '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h' }],
    });
    expect(result.flags[0]).toMatchObject({
      source: 'ofac_sdn',
      match_score: 1,
      details: { source_id: '25308', match_explanation: { method: 'identifier' } },
    });
    expect(result.risk_level).toBe('high');
  });

  it('finds a renamed vessel by its IMO number, whatever the name screened', async () => {
    const result = await screen({
      query: 'Ocean Star Trader',
      type: 'vessel',
      identifiers: [{ type: 'imo', value: 'IMO 9187629' }],
    });
    expect(result.flags[0]).toMatchObject({
      match_score: 1,
      details: { source_id: '15036', matched_name: 'ARTAVIL' },
    });
    expect(result.flags[0]!.details.match_explanation.secondary).toEqual([
      expect.objectContaining({ field: 'identifiers', outcome: 'match', effect: 'set to 1.0' }),
    ]);
  });

  it('finds a shipping company by its IMO company number alone, on every list that states it', async () => {
    // OFAC: "Identification Number IMO 5342883."; the UN: "IMO Number: 5342883. The Chongchongang ...".
    const result = await screen({ identifiers: [{ type: 'imo', value: '5342883' }] });
    const found = result.flags.map((f) => [f.source, f.details.source_id, f.match_score]);
    expect(found).toEqual(
      expect.arrayContaining([
        ['ofac_sdn', '17067', 1],
        ['un_sc', '6908516', 1],
      ]),
    );
    expect(result.flags.every((f) => f.details.match_explanation.method === 'identifier')).toBe(true);
    expect(result.risk_level).toBe('high');
  });

  it.each([
    ['a full-width IMO number', { type: 'imo', value: '７４０６７８４' }, '4243'],
    ['an IMO number with a zero-width space', { type: 'imo', value: '740\u200b6784' }, '4243'],
    ['an IMO number in Arabic-Indic digits', { type: 'imo', value: '٧٤٠٦٧٨٤' }, '4243'],
    ['an MMSI with spaces', { type: 'mmsi', value: '273 385 420' }, '37479'],
    ['a passport with a soft hyphen', { type: 'passport', value: 'AD00\u00ad2119' }, '7480'],
    [
      'a wallet address with a soft hyphen',
      { type: 'crypto_wallet', value: '12QtD5BFwR\u00adsdNsAZY76UVE1xyCGNTojH9h' },
      '25308',
    ],
    ['a BIC with spaces, in lower case', { type: 'bic', value: 'havi gb 2l' }, '906'],
    // No check lets a six-digit IMO number through; `other` finds what the list states.
    ['the six-digit IMO number OFAC states, as other', { type: 'other', value: '543400' }, '23513'],
  ])('finds the record by %s, at 1.0', async (_variant, identifier, sourceId) => {
    const result = await screen({ identifiers: [identifier] });
    expect(result.flags.map((f) => [f.source, f.details.source_id, f.match_score])).toContainEqual([
      'ofac_sdn',
      sourceId,
      1,
    ]);
    expect(result.risk_level).toBe('high');
  });

  it('keeps a base58 wallet address case-sensitive: another case is another address', async () => {
    const result = await screen({
      identifiers: [{ type: 'crypto_wallet', value: '12qtd5bfwrsdnsazy76uve1xycgntojh9h' }],
    });
    expect(result.flags).toEqual([]);
  });

  it('keeps the facts in the cache key: another birth date is screened anew', async () => {
    const first = await screen({ query: 'Vladimir Putin', type: 'person', date_of_birth: '1952' });
    const again = await screen({ query: 'Vladimir Putin', type: 'person', date_of_birth: '1952' });
    const other = await screen({ query: 'Vladimir Putin', type: 'person', date_of_birth: '1990' });
    expect([first.cache_hit, again.cache_hit, other.cache_hit]).toEqual([false, true, false]);
    expect(other.flags[0]!.match_score).toBeLessThan(first.flags[0]!.match_score);
  });
});
