import { describe, expect, it } from 'vitest';
import { parseEuXml } from '../../../src/sources/lists/parsers/eu-xml.js';
import { entityById, mirrorBytes, namesOfType, parseFromMirror } from './mirror.js';

const EU_FILE = 'xmlFullSanctionsList_1_1.xml';

describe('EU Financial Sanctions Files XML', () => {
  it('reads the 5-entity excerpt with all 45 name aliases, dated by generationDate', async () => {
    const eu = await parseFromMirror('eu_fsf');
    expect(eu.counts.entities).toBe(5);
    expect(eu.counts.byKind).toMatchObject({ person: 4, organization: 1 });
    expect(eu.counts.names).toBe(45);
    expect(eu.listDate).toBe('2026-08-05');
    expect(eu.entities.map((e) => e.source_id)).toEqual(['191', '521', '3822', '6106', '6177']);
  });

  it('keeps names in every language and script, with their language tag', async () => {
    const eu = await parseFromMirror('eu_fsf');
    const pci = entityById(eu, '3822');
    expect(pci.kind).toBe('organization');
    expect(pci.names[0]).toEqual({ full: 'Parchin Chemical Industries (PCI)', type: 'primary', lang: 'EN' });
    expect(pci.names).toContainEqual({
      full: 'صنایع شیمیایی پارچین',
      type: 'aka',
      script: 'Arab',
      lang: 'FA',
    });
    expect(pci.names).toContainEqual({ full: 'Tionscail Ceimiceán Parchin', type: 'aka', lang: 'GA' });
    expect(pci.programs).toEqual(['IRN']);
    expect(pci.identifiers).toEqual([
      { type: 'registration_number', value: '892', label: 'Registration Number' },
    ]);
    expect(pci.addresses).toHaveLength(6);
    expect(pci.countries).toEqual(['IR']);
  });

  it('treats aliases the FSF remarks as low quality as weak', async () => {
    const asiri = entityById(await parseFromMirror('eu_fsf'), '6177');
    expect(asiri.names.filter((n) => n.type === 'weak_aka').map((n) => n.full)).toEqual([
      'Abu-Salaah',
      'Abosslah',
      'Abu Saleh',
    ]);
    expect(asiri.names.filter((n) => n.script === 'Arab')).toHaveLength(2);
    expect(asiri.nationalities).toEqual(['SA']);
    expect(asiri.identifiers.map((id) => [id.type, id.value, id.country])).toEqual([
      ['national_id', '1028745097', 'SA'],
      ['passport', 'F654645', 'SA'],
    ]);
  });

  it('reads birthdates: exact, year ranges, and Islamic-calendar dates via their Gregorian equivalent', async () => {
    const eu = await parseFromMirror('eu_fsf');
    expect(entityById(eu, '191').birth_dates).toEqual(['1965-04-14', '1964-03-01']);
    expect(entityById(eu, '521').birth_dates).toEqual(['1953/1958']);
    // The ISLAMIC entry (24/6/1402) carries birthdate="1982-04-19", also listed as Gregorian.
    expect(entityById(eu, '6177').birth_dates).toEqual(['1982-04-18', '1982-04-19']);
    const islamicOnly = mirrorBytes(EU_FILE)
      .toString('utf8')
      .replace(
        /<birthdate circa="false" calendarType="GREGORIAN"[^>]*birthdate="1982-04-1[89]"[^>]*>/g,
        '<birthdate>',
      );
    const parsed = await parseEuXml(new Map([[EU_FILE, Buffer.from(islamicOnly)]]));
    expect(entityById(parsed, '6177').birth_dates).toEqual(['1982-04-19']);
  });

  it('marks strong="false" aliases as weak', async () => {
    const xml = mirrorBytes(EU_FILE)
      .toString('utf8')
      .replace(
        'wholeName="Haji Ahmad Jan" function="" title="" nameLanguage="" strong="true"',
        'wholeName="Haji Ahmad Jan" function="" title="" nameLanguage="" strong="false"',
      );
    const parsed = await parseEuXml(new Map([[EU_FILE, Buffer.from(xml)]]));
    const names = entityById(parsed, '521').names;
    expect(names.find((n) => n.full === 'Haji Ahmad Jan')?.type).toBe('weak_aka');
    expect(names[0]?.type).toBe('primary');
    expect(namesOfType(parsed, 'weak_aka')).toBe(4);
  });
});
