import { beforeAll, expect, it } from 'vitest';
import { type EntityMatch, NameIndex } from '../../../src/matching/index.js';
import type { ListEntity } from '../../../src/sources/list-entity.js';
import { explanationForApi, listFlag } from '../../../src/sources/list-flag.js';
import { LIST_REGISTRY } from '../../../src/sources/lists/list-registry.js';
import { matchableEntity } from '../../../src/sources/matchable-entity.js';
import { OFFICIAL_LIST_DATASETS } from '../../../src/sources/opensanctions-datasets.js';
import { opensanctionsFlag, yenteResults } from '../../../src/sources/providers/opensanctions-result.js';
import { watchlistFlag } from '../../../src/sources/watchlist-flag.js';
import { fixture } from '../../support/provider-server.js';
import { describeWithRealData, REAL_DATA_DIR } from '../../support/real-lists.js';
import { ftmLines, jsonLines, parseFtm, parseFtmFile, realFtmFiles } from './ftm-data.js';

let entities: ListEntity[];
let index: NameIndex;

/** The fictional sanctioned person of the yente answer fixture (opensanctions-match.json). */
const FICTIONAL_TARGET = 'NK-fict-K7rSv2LmQx9Wd4Ta';
/** What yente adds to an FtM entity to score it: the bulk export's lines do not carry it. */
const YENTE_SCORING = ['score', 'match', 'explanations'];

const fixtureResult = (file: string, id: string) =>
  JSON.parse(fixture(file)).responses.q1.results.find((r: { id: string }) => r.id === id);

/** A yente result as the line of OpenSanctions' bulk export that holds the same FtM entity. */
const bulkLine = (result: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(result).filter(([field]) => !YENTE_SCORING.includes(field)));

// The flags are checked on the real samples' records (the suites skip without TEST_DATA_DIR), and
// on the fixture's fictional target read as a bulk export line.
beforeAll(async () => {
  if (REAL_DATA_DIR === undefined) return;
  const { PEP_FILE, ZALA_FILE, EU_SAMPLE_FILE } = realFtmFiles(REAL_DATA_DIR);
  const parsed = await Promise.all([PEP_FILE, ZALA_FILE, EU_SAMPLE_FILE].map(parseFtmFile));
  const fictional = await parseFtm(
    jsonLines([bulkLine(fixtureResult('opensanctions-match.json', FICTIONAL_TARGET))]),
  );
  entities = [...parsed, fictional].flatMap((result) => result.entities);
  index = NameIndex.build(entities.map(matchableEntity));
});

function entity(id: string): ListEntity {
  const found = entities.find((e) => e.source_id === id);
  if (!found) throw new Error(`no entity ${id}`);
  return structuredClone(found);
}

/** A real search hit on the entity's primary name, as the list source gets it. */
function matchOf(target: ListEntity): EntityMatch {
  const hits = index.search(target.names[0]!.full, {
    type: target.kind === 'person' ? 'person' : 'entity',
    threshold: 0.5,
    limitPerSource: 50,
  });
  const hit = hits.get('opensanctions')?.find((m) => m.key === `opensanctions:${target.source_id}`);
  if (!hit) throw new Error(`${target.names[0]!.full} does not find itself`);
  return hit;
}

function flagOf(target: ListEntity, enabledLists: string[] = []) {
  return watchlistFlag(target, matchOf(target), { enabledLists });
}

describeWithRealData('OpenSanctions flags', () => {
  it('a person holding a public office is a PEP, with the position, caption, schema and the match explained', () => {
    const yaya = entity('Q88219141');
    const match = matchOf(yaya);
    const flag = watchlistFlag(yaya, match, { enabledLists: [] });
    expect(flag).toMatchObject({
      type: 'pep',
      source: 'opensanctions',
      list: 'SA_WIKI_PEPS_V2',
      match_score: 1,
    });
    expect(flag.details).toMatchObject({
      entity_id: 'Q88219141',
      caption: 'Sani Yaya',
      schema: 'Person',
      topics: [],
      datasets: ['sa_wiki_peps_v2'],
      positions: [{ name: 'Minister of Finance', start_date: '2016-08-01' }],
      countries: ['TG'],
      birth_dates: ['1963-12-31'],
      matched_name: 'Sani Yaya',
      match_explanation: explanationForApi(match.explanation),
    });
    expect(flag.details.confirms).toBeUndefined();
    // Everything a sanctions flag says about its entry, a provider's flag says too.
    expect(flag.details).toMatchObject(listFlag(yaya, match).details);
  });

  it('a person in the PEP file who holds no office, and an organisation tagged as a PEP, are watchlist flags', () => {
    const researcher = entity('Q100456396');
    expect(researcher.positions).toBeUndefined();
    expect(flagOf(researcher).type).toBe('watchlist');
    const company = entity('NK-cPks3aTbes8k4aCerfBAzN');
    company.topics = ['role.pep'];
    expect(flagOf(company).type).toBe('watchlist');
  });

  it('the topics role.pep and role.rca make a person a PEP without any position', () => {
    const person = entity('NK-mCEmxFfuhfdjpC8gsxH74o');
    expect(flagOf(person).type).toBe('watchlist');
    for (const topic of ['role.pep', 'role.rca']) {
      person.topics = [topic];
      expect(flagOf(person).type, topic).toBe('pep');
    }
  });

  it('a sanctioned target of an official list enabled here confirms it, and is listed under that dataset', () => {
    const kuzmenko = entity('NK-2Ka3UvopqbpZmVDFjWd4LA');
    expect(flagOf(kuzmenko, ['eu_fsf', 'un_sc'])).toMatchObject({
      type: 'watchlist',
      list: 'EU_FSF',
      details: { confirms: ['eu_fsf'], topics: ['sanction'] },
    });
    expect(flagOf(kuzmenko, ['un_sc']).details.confirms).toBeUndefined();
  });

  it('confirms every enabled official list the target is in, in a fixed order, and none without the sanction topic', () => {
    const zakharov = entity('NK-aU5ybkbRFJucf8YMwsJvDw');
    const all = flagOf(zakharov, ['us_csl', 'uk_fcdo', 'eu_fsf', 'ofac_sdn', 'un_sc']);
    expect(all).toMatchObject({ type: 'watchlist', list: 'US_OFAC_SDN' });
    expect(all.details.confirms).toEqual(['ofac_sdn', 'eu_fsf', 'uk_fcdo', 'us_csl']);
    expect(flagOf(zakharov, ['uk_fcdo'])).toMatchObject({
      list: 'GB_FCDO_SANCTIONS',
      details: { confirms: ['uk_fcdo'] },
    });
    zakharov.topics = ['debarment', 'corp.disqual'];
    const debarred = flagOf(zakharov, ['ofac_sdn', 'uk_fcdo']);
    expect(debarred).toMatchObject({ type: 'watchlist', list: 'GB_COH_DISQUALIFIED' });
    expect(debarred.details.confirms).toBeUndefined();
  });

  it('every confirmable source is an official list of the registry, and the registry says how each list flags', () => {
    const official = LIST_REGISTRY.filter((entry) => entry.kind === 'direct_feed').map((entry) => entry.id);
    expect(OFFICIAL_LIST_DATASETS.map((d) => d.source).sort()).toEqual([...official].sort());
    const opensanctions = LIST_REGISTRY.find((entry) => entry.id === 'opensanctions');
    expect(opensanctions).toMatchObject({ kind: 'watchlist_provider', enabledByDefault: false });
    expect(opensanctions?.toFlag).toBe(watchlistFlag);
    expect(LIST_REGISTRY.filter((e) => e.kind === 'direct_feed').every((e) => e.toFlag === listFlag)).toBe(
      true,
    );
  });
});

describeWithRealData('OpenSanctions flags in API mode', (dataDir) => {
  const ENABLED = ['eu_fsf', 'ofac_sdn', 'uk_fcdo'];

  /** The API mode's flag of a yente result for the entity's primary name. */
  function apiFlag(result: unknown, listed: ListEntity) {
    const read = yenteResults({ responses: { q1: { status: 200, results: [result] } } }, 'q1');
    if (!Array.isArray(read) || !read[0]) throw new Error('the result was not read');
    const query = { entity: listed.names[0]!.full, type: 'person' as const, threshold: 0.5, limit: 10 };
    return opensanctionsFlag(read[0], query, { enabledLists: ENABLED })!;
  }

  function expectSameFlag(api: ReturnType<typeof apiFlag>, listed: ListEntity) {
    const bulk = flagOf(listed, ENABLED);
    expect({ type: api.type, list: api.list, confirms: api.details.confirms }).toEqual({
      type: bulk.type,
      list: bulk.list,
      confirms: bulk.details.confirms,
    });
    // yente's score is the one detail that bulk mode has no counterpart for.
    expect(Object.keys(api.details).sort()).toEqual([...Object.keys(bulk.details), 'provider_score'].sort());
    for (const key of [
      'entity_id',
      'caption',
      'schema',
      'topics',
      'datasets',
      'name',
      'aliases',
      'positions',
    ])
      expect(api.details[key], key).toEqual(bulk.details[key]);
  }

  it('a sanctioned person yields the flag type, list, confirms and details of bulk mode', () => {
    // The bulk side is the same fictional FtM entity as the fixture's, read as an export line.
    const listed = entity(FICTIONAL_TARGET);
    const api = apiFlag(fixtureResult('opensanctions-match.json', FICTIONAL_TARGET), listed);
    expect(api.details.confirms).toEqual(['ofac_sdn', 'eu_fsf', 'uk_fcdo']);
    expectSameFlag(api, listed);
  });

  it('a person tagged role.pep yields the pep flag of bulk mode', () => {
    const listed = entity('Q100158628');
    // The fixture carries the topic OpenSanctions' PEP datasets give (the shared sample lacks it).
    listed.topics = ['role.pep'];
    expectSameFlag(apiFlag(fixtureResult('opensanctions-match-pep.json', 'Q100158628'), listed), listed);
  });

  it('a person whose office yente nests is a PEP by the position held, as in bulk mode', () => {
    const listed = entity('Q88219141');
    const lines = ftmLines(realFtmFiles(dataDir).PEP_FILE);
    const person = lines.find((line) => line.id === 'Q88219141');
    const occupancies = lines.filter(
      (line) => line.schema === 'Occupancy' && line.properties.holder?.includes('Q88219141'),
    );
    const nested = { ...person, properties: { ...person.properties, positionOccupancies: occupancies } };
    const api = apiFlag(nested, listed);
    expect(api.details.positions).toEqual([{ name: 'Minister of Finance', start_date: '2016-08-01' }]);
    expectSameFlag(api, listed);
  });
});
