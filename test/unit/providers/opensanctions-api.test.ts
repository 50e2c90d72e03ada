import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WEAK_ALIAS_FACTOR } from '../../../src/matching/entity-score.js';
import { yenteMatchRequest, yenteSchema } from '../../../src/sources/providers/opensanctions-api.js';
import {
  opensanctionsFlag,
  type YenteEntity,
  yenteResults,
} from '../../../src/sources/providers/opensanctions-result.js';
import type { SourceQuery } from '../../../src/sources/source.js';

const fixture = (name: string) => JSON.parse(fs.readFileSync(`test/fixtures/providers/${name}`, 'utf8'));
const person = (entity: string): SourceQuery => ({ entity, type: 'person', threshold: 0.5, limit: 10 });

function entities(answer: unknown): YenteEntity[] {
  const read = yenteResults(answer, 'q1');
  if (!Array.isArray(read)) throw new Error(read.problem);
  return read;
}

describe('the yente match request', () => {
  it('posts one query entity to /match/{dataset} with the threshold and limit as parameters', () => {
    const { url, body } = yenteMatchRequest(
      'https://api.opensanctions.org',
      'default',
      person('alexander zakharov'),
    );
    expect(url.href).toBe('https://api.opensanctions.org/match/default?threshold=0.5&limit=10');
    expect(body).toEqual({
      queries: { q1: { schema: 'Person', properties: { name: ['alexander zakharov'] } } },
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
    const [zakharov] = entities(fixture('opensanctions-match.json'));
    const flag = opensanctionsFlag(zakharov!, person('alexander zakharov'))!;
    expect(flag).toMatchObject({
      type: 'watchlist',
      source: 'opensanctions',
      list: 'GB_COH_DISQUALIFIED',
      match_score: 1,
      details: {
        entity_id: 'NK-aU5ybkbRFJucf8YMwsJvDw',
        caption: 'Alexander Vyacheslavovich ZAKHAROV',
        schema: 'Person',
        topics: ['debarment', 'corp.disqual', 'sanction'],
        countries: ['ru'],
        birth_dates: ['1965-09-21'],
        positions: [{ name: 'Propriétaire de LLC CST' }, { name: 'Owner of LLC CST' }],
        url: 'https://www.opensanctions.org/entities/NK-aU5ybkbRFJucf8YMwsJvDw/',
        matched_name: 'Alexander ZAKHAROV',
        provider_score: 0.97,
      },
    });
    expect(flag.details.datasets).toContain('us_ofac_sdn');
    expect(flag.details.match_explanation).toMatchObject({ matched_name: 'Alexander ZAKHAROV', score: 1 });
  });

  it('drops candidates yente returned but the service matcher scores below the threshold', () => {
    const [, nikita, lavrentiy] = entities(fixture('opensanctions-match.json'));
    expect(nikita!.score).toBe(0.71);
    expect(opensanctionsFlag(nikita!, person('alexander zakharov'))).toBeUndefined();
    expect(opensanctionsFlag(lavrentiy!, person('alexander zakharov'))).toBeUndefined();
  });

  it('flags a person with the role.pep topic as pep', () => {
    const [pep] = entities(fixture('opensanctions-match-pep.json'));
    const flag = opensanctionsFlag(pep!, person('mohammed bin khalid al saud'))!;
    expect(flag).toMatchObject({ type: 'pep', list: 'SA_WIKI_PEPS_V2', match_score: 1 });
    expect(flag.details.positions).toContainEqual({
      name: 'Chairman of the Board of Saudi Telecom Group (STC)',
    });
    expect(flag.details.countries).toEqual(['sa']);
  });

  it('names the first listing dataset, passing over enrichment datasets that list nobody', () => {
    const [zakharov] = entities(fixture('opensanctions-match.json'));
    const entity = { ...zakharov!, datasets: ['ext_ru_egrul', 'ann_graph_topics', 'us_ofac_sdn'] };
    expect(opensanctionsFlag(entity, person('alexander zakharov'))!.list).toBe('US_OFAC_SDN');
  });

  it('flags a relative or close associate (role.rca) as pep, but a company with the topic as watchlist', () => {
    const base: YenteEntity = {
      id: 'x-1',
      caption: 'Acme Trading',
      schema: 'Person',
      properties: { topics: ['role.rca'] },
      datasets: ['peps'],
      firstSeen: null,
      lastSeen: null,
      score: 0.9,
    };
    expect(opensanctionsFlag(base, person('acme trading'))!.type).toBe('pep');
    expect(opensanctionsFlag({ ...base, schema: 'Company' }, person('acme trading'))!.type).toBe('watchlist');
  });

  it('scores a weak alias as the list index does, below the same match on a strong name', () => {
    const entity: YenteEntity = {
      id: 'x-2',
      caption: 'Something Else Entirely',
      schema: 'Organization',
      properties: { weakAlias: ['Acme Tradin'] },
      datasets: [],
      firstSeen: null,
      lastSeen: null,
      score: null,
    };
    const flag = opensanctionsFlag(entity, { ...person('acme trading'), type: 'entity' })!;
    const strong = opensanctionsFlag(
      { ...entity, properties: { alias: ['Acme Tradin'] } },
      { ...person('acme trading'), type: 'entity' },
    )!;
    expect(flag.details.matched_name_type).toBe('weak_aka');
    expect(flag.match_score).toBeCloseTo(strong.match_score * WEAK_ALIAS_FACTOR, 10);
    expect(flag.list).toBe('OPENSANCTIONS');
  });

  it('reads a property given as a single string, as found in real data, and ignores nested entities', () => {
    const answer = {
      responses: {
        q1: {
          status: 200,
          results: [
            {
              id: 'Q1',
              schema: 'Person',
              properties: { name: 'Jane Roe', position: 'Mayor', ownershipOwner: [{ id: 'nested' }] },
              datasets: ['wd_peps'],
            },
          ],
        },
      },
    };
    const [entity] = entities(answer);
    expect(entity).toMatchObject({
      caption: 'Jane Roe',
      properties: { name: ['Jane Roe'], position: ['Mayor'] },
    });
    expect(entity!.properties.ownershipOwner).toBeUndefined();
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

  it('skips a result without an id or schema and keeps the rest', () => {
    const answer = {
      responses: { q1: { status: 200, results: [{ caption: 'x' }, { id: 'a', schema: 'Person' }] } },
    };
    expect(entities(answer).map((e) => e.id)).toEqual(['a']);
  });
});
