import { beforeAll, describe, expect, it } from 'vitest';
import type { ListParseResult } from '../../../src/sources/lists/parsers/types.js';
import { describeWithRealLists } from '../../support/real-lists.js';
import { entityById, namesOfType, parseFromMirror, recordsWithImo } from './mirror.js';

describeWithRealLists('OFAC SDN legacy CSV: the whole list', (listsDir) => {
  let sdn: ListParseResult;
  beforeAll(async () => {
    sdn = await parseFromMirror('ofac_sdn', undefined, undefined, listsDir);
  });

  it('reads every SDN entry with the kind counts the data README states', () => {
    expect(sdn.counts.entities).toBe(13_821);
    expect(sdn.counts.byKind).toEqual({
      person: 6646,
      organization: 6033,
      vessel: 764,
      aircraft: 378,
      unknown: 0,
    });
    expect(new Set(sdn.entities.map((e) => e.source_id)).size).toBe(13_821);
    expect(sdn.entities.every((e) => e.source === 'ofac_sdn' && e.list === 'SDN')).toBe(true);
  });

  it('keeps every distinct name: primaries, alt.csv aliases and the a.k.a. names found only in Remarks', () => {
    // Independent count (python over sdn.csv + alt.csv + sdn_comments.csv, names compared
    // case-insensitively per entry): 34,295 names, of which 3,388 only in Remarks. alt.csv has
    // 17,091 rows; a few repeat a name already present and are not counted twice.
    expect(sdn.counts.names).toBe(34_295);
    expect(namesOfType(sdn, 'primary')).toBe(13_821);
    expect(namesOfType(sdn, 'weak_aka')).toBe(3388);
  });

  it('reads the IMO number of every ship and shipping company that states one, in every form', () => {
    // Independent python count over sdn.csv + sdn_comments.csv: 878 entries state "IMO <digits>"
    // ("Vessel Registration Identification IMO 9187629", "Identification Number IMO 5342883",
    // "Company Number IMO 5434358") or a ship's bare seven digits as its Vessel Registration
    // Identification. Before company numbers were read: 771 (762 vessels, 9 companies).
    expect(recordsWithImo(sdn)).toEqual({ vessel: 759, organization: 119 });
    expect(entityById(sdn, '17067').identifiers).toContainEqual({
      type: 'imo',
      value: '5342883',
      label: 'Identification Number',
    });
    expect(entityById(sdn, '23723').identifiers).toContainEqual({
      type: 'imo',
      value: '1991835',
      label: 'Company Number',
    });
    // A national register's number under the same label is not an IMO number.
    expect(entityById(sdn, '37479').identifiers).toContainEqual({
      type: 'registration_number',
      value: 'RS 150443',
      label: 'Vessel Registration Identification',
      country: 'RU',
    });
  });
});

describe('OFAC SDN legacy CSV', () => {
  let sdn: ListParseResult;
  beforeAll(async () => {
    sdn = await parseFromMirror('ofac_sdn');
  });

  it('reads every entry of the excerpt, each once, with its kind', () => {
    expect(sdn.counts.entities).toBe(40);
    expect(sdn.counts.byKind).toEqual({ person: 5, organization: 32, vessel: 2, aircraft: 1, unknown: 0 });
    expect(new Set(sdn.entities.map((e) => e.source_id)).size).toBe(40);
    expect(sdn.entities.every((e) => e.source === 'ofac_sdn' && e.list === 'SDN')).toBe(true);
    // One primary each, the excerpt's 20 alt.csv aliases and 17 a.k.a. names found only in Remarks.
    expect(sdn.counts.names).toBe(77);
    expect(namesOfType(sdn, 'primary')).toBe(40);
    expect(namesOfType(sdn, 'weak_aka')).toBe(17);
  });

  it('joins aliases, addresses and Remarks a.k.a. names to their entry', () => {
    const bank = entityById(sdn, '306');
    expect(bank.kind).toBe('organization');
    expect(bank.names).toEqual([
      { full: 'BANCO NACIONAL DE CUBA', type: 'primary' },
      { full: 'NATIONAL BANK OF CUBA', type: 'aka' },
      { full: 'BNC', type: 'weak_aka' },
    ]);
    expect(bank.programs).toEqual(['CUBA']);
    expect(bank.addresses.map((a) => a.country)).toEqual(['CH', 'ES', 'JP', 'PA']);
    expect(bank.addresses[0]).toEqual({
      full: 'Zweierstrasse 35, Zurich CH-8022, Switzerland',
      country: 'CH',
    });
    expect(bank.url).toBe('https://sanctionssearch.ofac.treas.gov/Details.aspx?id=306');
    expect(bank.raw).toMatchObject({
      ent_num: '306',
      SDN_Name: 'BANCO NACIONAL DE CUBA',
      Remarks: "a.k.a. 'BNC'.",
    });
  });

  it('puts individuals in reading order and reads DOB, passport and nationality from Remarks', () => {
    const mugabe = entityById(sdn, '7480');
    expect(mugabe.kind).toBe('person');
    expect(mugabe.names[0]).toEqual({
      full: 'Robert Gabriel MUGABE',
      type: 'primary',
      parts: { given: 'Robert Gabriel', family: 'MUGABE' },
    });
    expect(mugabe.birth_dates).toEqual(['1924-02-21']);
    expect(mugabe.identifiers).toEqual([
      { type: 'passport', value: 'AD002119', country: 'ZW', label: 'Passport' },
    ]);
    expect(mugabe.programs).toEqual(['ZIMBABWE']);
  });

  it('reads digital currency addresses, gender and ID numbers of a cyber-program entry', () => {
    const li = entityById(sdn, '28264');
    expect(li.names[0]?.full).toBe('Jiadong LI');
    expect(li.programs).toEqual(['DPRK3', 'CYBER2']);
    expect(li.birth_dates).toEqual(['1987-01-10']);
    expect(li.nationalities).toEqual(['CN']);
    expect(li.gender).toBe('male');
    const wallets = li.identifiers.filter((id) => id.type === 'crypto_address');
    expect(wallets).toHaveLength(12);
    expect(wallets[0]).toEqual({
      type: 'crypto_address',
      value: '1EfMVkxQQuZfBdocpJu6RUsCJvenQWbQyE',
      label: 'Digital Currency Address - XBT',
    });
    expect(li.identifiers).toContainEqual({
      type: 'national_id',
      value: '210302198701102136',
      label: 'Identification Number',
      country: 'CN',
    });
    expect(li.identifiers).toContainEqual({ type: 'phone', value: '8613314257947', label: 'Phone Number' });
    expect(li.names.filter((n) => n.type === 'weak_aka').map((n) => n.full)).toEqual([
      'blackjack1987',
      'khaleesi',
    ]);
  });

  it('continues Remarks cut at 1,000 characters with sdn_comments.csv, even mid-name', () => {
    const group = entityById(sdn, '27307');
    // sdn.csv ends the Remarks with "a.k.a. 'WHOIS HACKIN"; the comments file goes on "G TEAM'".
    expect(group.names.map((n) => n.full)).toContain('WHOIS HACKING TEAM');
    expect(group.names.map((n) => n.full)).toContain('APPLEWORM');
    expect(sdn.warnings).toEqual([
      'SDN_COMMENTS.CSV: 3 rows for ent_num absent from the list (12300, 15599, 15600)',
    ]);
  });

  it('splits programs joined by "] [" and reads vessel and aircraft details', () => {
    expect(entityById(sdn, '4632').programs).toEqual(['IRAN', 'SDGT', 'IRGC', 'IFSR']);
    const vessel = entityById(sdn, '4243');
    expect(vessel.kind).toBe('vessel');
    expect(vessel.countries).toEqual(['PA']);
    expect(vessel.identifiers).toEqual([
      { type: 'imo', value: '7406784', label: 'Vessel Registration Identification' },
    ]);
    expect(vessel.names.map((n) => [n.full, n.type])).toEqual([
      ['EBANO', 'primary'],
      ['ANA I', 'weak_aka'],
      ['SAND SWAN', 'weak_aka'],
    ]);
    expect(entityById(sdn, '4238').identifiers).toEqual([
      { type: 'call_sign', value: 'CL2192', label: 'Call_Sign' },
    ]);
    const aircraft = entityById(sdn, '15431');
    expect(aircraft.kind).toBe('aircraft');
    expect(aircraft.identifiers.map((id) => [id.type, id.value])).toEqual([
      ['aircraft_serial', '8401'],
      ['aircraft_serial', '1023409321'],
    ]);
  });
});

describeWithRealLists('OFAC non-SDN consolidated legacy CSV: the whole list', (listsDir) => {
  it('reads the 442 entries and 1,073 aliases of cons_prim/cons_alt as list NON_SDN', async () => {
    const cons = await parseFromMirror('ofac_cons', 'ofac_legacy_csv', undefined, listsDir);
    expect(cons.counts.entities).toBe(442);
    expect(cons.counts.byKind).toMatchObject({ person: 79, organization: 363 });
    // 442 primaries + 1,071 of the 1,073 cons_alt.csv rows (2 repeat a name the entry already
    // has) + 72 a.k.a. names found only in Remarks; counted independently with python.
    expect(cons.counts.names).toBe(1585);
    expect(namesOfType(cons, 'aka') + namesOfType(cons, 'fka')).toBe(1071);
    // The non-SDN lists name no ship and no IMO number (grep finds none in cons_*.csv).
    expect(recordsWithImo(cons)).toEqual({});
  });
});

describe('OFAC non-SDN consolidated legacy CSV', () => {
  it('reads the entries and aliases of cons_prim/cons_alt as list NON_SDN', async () => {
    const cons = await parseFromMirror('ofac_cons', 'ofac_legacy_csv');
    expect(cons.counts.entities).toBe(22);
    expect(cons.counts.byKind).toMatchObject({ person: 20, organization: 2 });
    expect(cons.entities.every((e) => e.list === 'NON_SDN')).toBe(true);
    expect(cons.counts.names).toBe(74);
    expect(namesOfType(cons, 'aka') + namesOfType(cons, 'fka')).toBe(48);
    const haniya = entityById(cons, '9639');
    expect(haniya).toMatchObject({
      source: 'ofac_cons',
      list: 'NON_SDN',
      programs: ['NS-PLC'],
      birth_dates: ['1962'],
    });
    expect(haniya.names.map((n) => n.full)).toEqual([
      'Ismail Abdul Salah HANIYA',
      'Ismail HANIYA',
      'Ismaeel HANIYYA',
    ]);
    expect(haniya.places_of_birth).toEqual(['Shati']);
  });
});
