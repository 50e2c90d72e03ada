import { describe, expect, it } from 'vitest';
import { WEAK_ALIAS_FACTOR } from '../../../src/matching/entity-score.js';
import { yenteMatchRequest, yenteSchema } from '../../../src/sources/providers/opensanctions-api.js';
import {
  opensanctionsFlag,
  type YenteCandidate,
  yenteResults,
} from '../../../src/sources/providers/opensanctions-result.js';
import type { SourceQuery } from '../../../src/sources/source.js';
import { fixture } from '../../support/provider-server.js';

const person = (entity: string): SourceQuery => ({ entity, type: 'person', threshold: 0.5, limit: 10 });
const NO_LISTS = { enabledLists: [] };

/** The results of a yente answer, as the fixture holds them (raw JSON). */
const resultsOf = (name: string): any[] => JSON.parse(fixture(name)).responses.q1.results;

function candidates(results: unknown[]): YenteCandidate[] {
  const read = yenteResults({ responses: { q1: { status: 200, results } } }, 'q1');
  if (!Array.isArray(read)) throw new Error(read.problem);
  return read;
}

/** One result in yente's shape, from the FtM fields a test sets. */
const candidate = (result: Record<string, unknown>): YenteCandidate => candidates([result])[0]!;

describe('the yente match request', () => {
  it('posts one query entity to /match/{dataset} with the threshold and limit as parameters', () => {
    const { url, body } = yenteMatchRequest(
      'https://api.opensanctions.org',
      'default',
      person('alexander korsakov'),
    );
    expect(url.href).toBe('https://api.opensanctions.org/match/default?threshold=0.5&limit=10');
    expect(body).toEqual({
      queries: { q1: { schema: 'Person', properties: { name: ['alexander korsakov'] } } },
    });
  });

  it('keeps the path of a self-hosted yente behind a prefix', () => {
    const { url } = yenteMatchRequest('https://screening.internal/yente/', 'sanctions', person('x y'));
    expect(url.pathname).toBe('/yente/match/sanctions');
  });

  it('matches persons as Person and every other query as LegalEntity', () => {
    expect(yenteSchema('person')).toBe('Person');
    expect(yenteSchema('entity')).toBe('LegalEntity');
  });
});

describe('yente results as flags', () => {
  it('flags a sanctioned person as watchlist, scored by the service matcher, keeping yente score apart', () => {
    const [korsakov] = candidates(resultsOf('opensanctions-match.json'));
    const flag = opensanctionsFlag(korsakov!, person('alexander korsakov'), NO_LISTS)!;
    expect(flag).toMatchObject({
      type: 'watchlist',
      source: 'opensanctions',
      list: 'GB_COH_DISQUALIFIED',
      match_score: 1,
      details: {
        entity_id: 'NK-fict-K7rSv2LmQx9Wd4Ta',
        caption: 'Aleksandr Viktorovich KORSAKOV',
        schema: 'Person',
        topics: ['debarment', 'corp.disqual', 'sanction'],
        countries: ['RU'],
        birth_dates: ['1968-03-14'],
        matched_name: 'Alexander KORSAKOV',
        provider_score: 0.97,
      },
    });
    expect(flag.details.datasets).toContain('us_ofac_sdn');
    expect(flag.details.match_explanation).toMatchObject({ matched_name: 'Alexander KORSAKOV', score: 1 });
    // The record kept is the FtM entity: yente's own scoring is in provider_score only.
    expect(flag.details.source_record).not.toHaveProperty('explanations');
  });

  it('drops candidates yente returned but the service matcher scores below the threshold', () => {
    const [, timofei, yaroslav] = candidates(resultsOf('opensanctions-match.json'));
    expect(timofei!.score).toBe(0.71);
    expect(opensanctionsFlag(timofei!, person('alexander korsakov'), NO_LISTS)).toBeUndefined();
    expect(opensanctionsFlag(yaroslav!, person('alexander korsakov'), NO_LISTS)).toBeUndefined();
  });

  it('flags a person with the role.pep topic as pep, keeping the positions stated', () => {
    const [pep] = candidates(resultsOf('opensanctions-match-pep.json'));
    const flag = opensanctionsFlag(pep!, person('mohammed bin khalid al saud'), NO_LISTS)!;
    expect(flag).toMatchObject({ type: 'pep', list: 'SA_WIKI_PEPS_V2', match_score: 1 });
    expect(flag.details.countries).toEqual(['SA']);
    // yente's match answer nests no Occupancy: no position held is known, the ones stated stay.
    expect(flag.details.positions).toEqual([]);
    expect((flag.details.source_record as any).properties.position).toContain(
      'Chairman of the Board of Saudi Telecom Group (STC)',
    );
  });

  it('confirms the official lists enabled here that list the target, and is listed under that dataset', () => {
    const [korsakov] = candidates(resultsOf('opensanctions-match.json'));
    const flag = opensanctionsFlag(korsakov!, person('alexander korsakov'), {
      enabledLists: ['uk_fcdo', 'ofac_sdn', 'un_sc'],
    })!;
    expect(flag).toMatchObject({ type: 'watchlist', list: 'US_OFAC_SDN' });
    expect(flag.details.confirms).toEqual(['ofac_sdn', 'uk_fcdo']);
  });

  it('names the first listing dataset, passing over enrichment datasets that list nobody', () => {
    const [korsakov] = resultsOf('opensanctions-match.json');
    const entity = candidate({ ...korsakov, datasets: ['ext_ru_egrul', 'ann_graph_topics', 'us_ofac_sdn'] });
    expect(opensanctionsFlag(entity, person('alexander korsakov'), NO_LISTS)!.list).toBe('US_OFAC_SDN');
  });

  it('flags a relative or close associate (role.rca) as pep, but a company with the topic as watchlist', () => {
    const acme = { id: 'x-1', caption: 'Acme Trading', datasets: ['peps'], score: 0.9 };
    const properties = { name: ['Acme Trading'], topics: ['role.rca'] };
    const rca = candidate({ ...acme, schema: 'Person', properties });
    expect(opensanctionsFlag(rca, person('acme trading'), NO_LISTS)!.type).toBe('pep');
    const company = candidate({ ...acme, schema: 'Company', properties });
    expect(opensanctionsFlag(company, person('acme trading'), NO_LISTS)!.type).toBe('watchlist');
  });

  it('scores a weak alias as the list index does, below the same match on a strong name', () => {
    const entity = (properties: Record<string, string[]>) =>
      candidate({ id: 'x-2', caption: 'Acme Tradin', schema: 'Organization', properties, datasets: [] });
    const query: SourceQuery = { ...person('acme trading'), type: 'entity' };
    const weak = opensanctionsFlag(entity({ weakAlias: ['Acme Tradin'] }), query, NO_LISTS)!;
    const strong = opensanctionsFlag(entity({ alias: ['Acme Tradin'] }), query, NO_LISTS)!;
    expect(weak.details.matched_name_type).toBe('weak_aka');
    expect(weak.match_score).toBeCloseTo(strong.match_score * WEAK_ALIAS_FACTOR, 10);
    expect(weak.list).toBe('OPENSANCTIONS');
  });

  it('reads a property given as a single string, as found in real data, and ignores malformed nested entities', () => {
    const [entity] = candidates([
      {
        id: 'Q1',
        schema: 'Person',
        properties: { name: 'Jane Roe', birthDate: '1960-02-03', ownershipOwner: [{ id: 'nested' }] },
        datasets: ['wd_peps'],
      },
    ]);
    expect(entity!.entity).toMatchObject({
      source_id: 'Q1',
      kind: 'person',
      names: [{ full: 'Jane Roe', type: 'primary' }],
      birth_dates: ['1960-02-03'],
    });
    expect(entity!.score).toBeNull();
  });

  it.each([
    ['no responses', {}],
    ['another query key', { responses: { other: { status: 200, results: [] } } }],
    ['a failed query', { responses: { q1: { status: 500, results: [] } } }],
    ['no result list', { responses: { q1: { status: 200 } } }],
    ['not an object', [1, 2]],
  ])('treats an answer with %s as a failure, never as no match', (_case, answer) => {
    expect(Array.isArray(yenteResults(answer, 'q1'))).toBe(false);
  });

  it('skips a result without an id, a schema or any name, and keeps the rest', () => {
    const named = { properties: { name: ['Jane Roe'] } };
    const read = candidates([
      { ...named, caption: 'x' },
      { ...named, id: 'no-schema' },
      { id: 'unnamed', schema: 'Person', properties: { birthDate: ['1960'] } },
      { ...named, id: 'a', schema: 'Person' },
    ]);
    expect(read.map((c) => c.entity.source_id)).toEqual(['a']);
  });
});
