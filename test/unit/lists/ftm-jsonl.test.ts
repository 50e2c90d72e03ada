import { beforeAll, describe, expect, it } from 'vitest';
import type { ListParseResult } from '../../../src/sources/lists/parsers/types.js';
import { describeWithRealData } from '../../support/real-lists.js';
import { ftmLines, HANDMADE_FILE, PEP_FILE, parseFtmFile, realFtmFiles } from './ftm-data.js';
import { entityById } from './mirror.js';

describeWithRealData('OpenSanctions FtM export: the whole Wikidata PEP file', (dataDir) => {
  const { PEP_FILE } = realFtmFiles(dataDir);
  let peps: ListParseResult;
  beforeAll(async () => {
    peps = await parseFtmFile(PEP_FILE);
  });

  it('reads the 423 target persons of the 1,565 entities, named after their dataset and dated by the export', () => {
    // The data README: 607 Person, 100 Position, 102 Occupancy, 756 Family; of the persons, 423
    // are targets (the other 184 are relatives named by Family links only).
    expect(peps.counts).toMatchObject({ entities: 423, records: 1565, skipped: 0 });
    expect(peps.counts.byKind).toMatchObject({ person: 423, organization: 0 });
    expect(peps.listDate).toBe('2024-03-14');
    expect(peps.warnings).toEqual([]);
    expect(new Set(peps.entities.map((e) => e.source_id)).size).toBe(423);
    expect(peps.entities.every((e) => e.source === 'opensanctions' && e.list === 'SA_WIKI_PEPS_V2')).toBe(
      true,
    );
    expect(peps.entities.every((e) => e.names[0]?.type === 'primary')).toBe(true);
    const relative = ftmLines(PEP_FILE).find((e) => e.schema === 'Person' && e.target === false);
    expect(peps.entities.some((e) => e.source_id === relative.id)).toBe(false);
  });

  it('gives every holder of an Occupancy its positions, and no one else, though the file has no topics', () => {
    // 141 distinct persons are an Occupancy's holder in the file (counted with a separate script).
    const holders = peps.entities.filter((e) => (e.positions ?? []).length > 0);
    expect(holders).toHaveLength(141);
    expect(peps.entities.every((e) => (e.topics ?? []).length === 0)).toBe(true);
  });
});

describe('OpenSanctions FtM export: the Wikidata PEP file', () => {
  let peps: ListParseResult;
  beforeAll(async () => {
    peps = await parseFtmFile(PEP_FILE);
  });

  it('reads only the target persons of the excerpt, named after their dataset and dated by the export', () => {
    // The excerpt: 22 Person (18 targets, 4 relatives named by Family links only), 7 Occupancy,
    // 1 Position and 85 Family lines.
    expect(peps.counts).toMatchObject({ entities: 18, records: 115, skipped: 0 });
    expect(peps.counts.byKind).toMatchObject({ person: 18, organization: 0 });
    expect(peps.listDate).toBe('2024-03-14');
    expect(peps.warnings).toEqual([]);
    expect(peps.entities.every((e) => e.source === 'opensanctions' && e.list === 'SA_WIKI_PEPS_V2')).toBe(
      true,
    );
    const relative = ftmLines(PEP_FILE).find((e) => e.schema === 'Person' && e.target === false);
    expect(peps.entities.some((e) => e.source_id === relative.id)).toBe(false);
  });

  it('gives every holder of an Occupancy its positions, and no one else, though the file has no topics', () => {
    const lines = ftmLines(PEP_FILE);
    const holderIds = new Set(
      lines.filter((e) => e.schema === 'Occupancy').flatMap((e) => e.properties.holder as string[]),
    );
    const holders = peps.entities.filter((e) => (e.positions ?? []).length > 0);
    expect(holders.map((e) => e.source_id).sort()).toEqual(
      [...holderIds].filter((id) => peps.entities.some((e) => e.source_id === id)).sort(),
    );
    expect(holders.length).toBeGreaterThan(10);
    expect(peps.entities.every((e) => (e.topics ?? []).length === 0)).toBe(true);
    // One Occupancy of his own, no Position linked, one position stated: they are the same office.
    expect(entityById(peps, 'Q88219141').positions).toEqual([
      { name: 'Minister of Finance', start_date: '2016-08-01' },
    ]);
    expect(entityById(peps, 'Q88219141').datasets).toEqual(['sa_wiki_peps_v2']);
  });

  it('dates only the tenures that are one person’s, and names a merged office by what all its holders state', () => {
    // Q12231217 holds an Occupancy of his own (1964-1968) and one Occupancy shared by eight
    // holders, all of whom state "Minister of Defence"; its dates belong to no one in particular.
    expect(entityById(peps, 'Q12231217').positions).toEqual([
      { start_date: '1964-01-01', end_date: '1968-01-01' },
      { name: 'Minister of Defence' },
    ]);
  });

  it('puts the caption first, then names as aka, previous names as fka and weak aliases as weak_aka', () => {
    const yaya = entityById(peps, 'Q88219141');
    // The file also lists the given name and the surname as names; one word repeating a name
    // part is not a name (it would flag everyone called Sani).
    expect(yaya.names).toEqual([{ full: 'Sani Yaya', type: 'primary' }]);
    const rafiq = entityById(peps, 'Q106476949');
    expect(rafiq.names[0]).toEqual({ full: "Ma'ruf Rafiq", type: 'primary' });
    expect(rafiq.names).toContainEqual({ full: "Ma'ruf Rafiq Mahmoud", type: 'fka' });
    expect(rafiq.names).toContainEqual({ full: 'معروف رفيق محمود', type: 'aka', script: 'Arab' });
    expect(entityById(peps, 'Q455341').names.at(-1)).toEqual({
      full: 'General in the War on Terrorism',
      type: 'weak_aka',
    });
    // No `name` at all: the caption, found among the aliases, is the primary name.
    expect(entityById(peps, 'Q60195440').names[0]).toEqual({
      full: 'Abdullah bin Bandar bin Abdulaziz Al Saud',
      type: 'primary',
    });
  });

  it('maps the facts of a person: birth date written as a bare string, nationality, birthplace, notes, page', () => {
    const abdullah = entityById(peps, 'Q60195440');
    expect(abdullah.birth_dates).toEqual(['1986-08-07']);
    expect(abdullah.nationalities).toEqual(['SA']);
    expect(abdullah.places_of_birth).toEqual(['Riyadh, Saudi Arabia']);
    expect(abdullah.gender).toBe('male');
    expect(abdullah.listed_on).toBe('2024-03-14');
    expect(abdullah.url).toBe('https://www.opensanctions.org/entities/Q60195440/');
    expect(abdullah.raw).toMatchObject({ id: 'Q60195440', schema: 'Person', target: true });
  });
});

describe('OpenSanctions FtM export: a hand-written sanctions export', () => {
  let export_: ListParseResult;
  beforeAll(async () => {
    export_ = await parseFtmFile(HANDMADE_FILE);
  });

  it('reads only the targets: a person and a company, and an organisation linked to one', () => {
    expect(export_.counts).toMatchObject({ entities: 3, records: 9, skipped: 0 });
    expect(export_.counts.byKind).toMatchObject({ person: 1, organization: 2 });
    // The owner of a target, from a registry only, is not a target itself.
    expect(export_.entities.some((e) => e.source_id === 'hm-company-northwind-holdings')).toBe(false);
    expect(export_.listDate).toBe('2026-01-15');
  });

  it('joins a target with its Sanctions and its Address entity, and keeps topics and datasets', () => {
    const orlovsky = entityById(export_, 'hm-person-orlovsky');
    expect(orlovsky.names).toEqual([
      { full: 'Dmitri Petrovich ORLOVSKY', type: 'primary' },
      { full: 'Dmitriy Orlovskiy', type: 'aka' },
    ]);
    expect(orlovsky.programs).toEqual(['EU-RUS', 'GB-RUS']);
    expect(orlovsky.topics).toEqual(['sanction']);
    expect(orlovsky.datasets).toEqual(['eu_fsf', 'gb_hmt_sanctions', 'ext_ru_egrul']);
    expect(orlovsky.list).toBe('EU_FSF');
    // taxNumber and innCode hold the same number: one identifier.
    expect(orlovsky.identifiers).toEqual([{ type: 'tax_id', value: '770000000142', label: 'taxNumber' }]);
    expect(orlovsky.addresses).toEqual([
      { full: '12 Harbour Lane, Flat 3, Testograd, 100001', city: 'Testograd', country: 'RU' },
    ]);
    expect(orlovsky.url).toBe('https://sanctions.example.org/entries/orlovsky');
    expect(entityById(export_, 'hm-company-northwind').programs).toEqual(['US-RUSHAR']);
  });

  it('names an entity only in enrichment datasets after the first of them', () => {
    expect(entityById(export_, 'hm-organization-friends')).toMatchObject({
      kind: 'organization',
      list: 'EXT_RU_EGRUL',
      topics: ['sanction.linked'],
    });
  });
});

describeWithRealData('OpenSanctions FtM export: the sanctions samples', (dataDir) => {
  const { ZALA_FILE, EU_SAMPLE_FILE } = realFtmFiles(dataDir);
  let zala: ListParseResult;
  let eu: ListParseResult;
  beforeAll(async () => {
    [zala, eu] = await Promise.all([parseFtmFile(ZALA_FILE), parseFtmFile(EU_SAMPLE_FILE)]);
  });

  it('reads only the 14 targets of the 91 entities: 6 persons and 8 companies', () => {
    expect(zala.counts).toMatchObject({ entities: 14, records: 91 });
    expect(zala.counts.byKind).toMatchObject({ person: 6, organization: 8 });
    // A company only in the Russian registry (an owner of a target), not a target itself.
    expect(zala.entities.some((e) => e.source_id === 'NK-56Edov9bas9puzaChH5pBy')).toBe(false);
    expect(zala.listDate).toBe('2026-04-29');
  });

  it('joins a target with its Sanctions and its Address entity, and keeps topics and datasets', () => {
    const zakharov = entityById(zala, 'NK-aU5ybkbRFJucf8YMwsJvDw');
    expect(zakharov.names[0]).toEqual({ full: 'Alexander Vyacheslavovich ZAKHAROV', type: 'primary' });
    // 'ZAKHAROV, Aleksandr Vyacheslavovich' (OFAC's way) is read in reading order, and then is
    // the same name as 'Aleksandr Vyacheslavovich Zakharov'.
    expect(zakharov.names).toContainEqual({ full: 'Aleksandr Vyacheslavovich Zakharov', type: 'aka' });
    expect(zakharov.names.some((n) => n.full.includes(','))).toBe(false);
    expect(zakharov.programs).toEqual(expect.arrayContaining(['US-RUSHAR', 'EU-UKR', 'SECO-UKRAINE']));
    expect(zakharov.topics).toEqual(['debarment', 'corp.disqual', 'sanction']);
    expect(zakharov.datasets).toContain('us_ofac_sdn');
    expect(zakharov.list).toBe('GB_COH_DISQUALIFIED');
    // taxNumber and innCode hold the same number: one identifier.
    expect(zakharov.identifiers.filter((i) => i.value === '183111242406')).toEqual([
      { type: 'tax_id', value: '183111242406', label: 'taxNumber' },
    ]);
    expect(zakharov.addresses[0]).toEqual({
      full: '272 Pushkinskaya Street, Apt 41, Izhevsk, 426008',
      city: 'Izhevsk',
      country: 'RU',
    });
    expect(zakharov.countries).toEqual(['RU']);
    expect(zakharov.url).toMatch(/^https:\/\/gels-avoirs\.dgtresor\.gouv\.fr\//);
  });

  it('names an entity only in enrichment datasets after the first of them', () => {
    const association = entityById(zala, 'NK-SiYwWfxwLVrVeFswsvAvsm');
    expect(association).toMatchObject({
      kind: 'organization',
      list: 'EXT_RU_EGRUL',
      topics: ['sanction.linked'],
    });
  });

  it('reads the EU sample: 4 persons and 2 organisations, all tagged sanction, list EU_FSF', () => {
    expect(eu.counts).toMatchObject({ entities: 6, records: 7 });
    expect(eu.counts.byKind).toMatchObject({ person: 4, organization: 2 });
    expect(eu.entities.every((e) => e.list === 'EU_FSF' && e.topics?.includes('sanction'))).toBe(true);
    const irgc = entityById(eu, 'NK-2PacmNpiLUmoz4XD2mSt7A');
    expect(irgc.names.map((n) => n.full)).toEqual(['IRGC', 'Iranian Revolutionary Guard Corps']);
    expect(irgc.countries).toEqual(['IR']);
  });
});
