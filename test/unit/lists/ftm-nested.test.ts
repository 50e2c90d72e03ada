import { expect, it } from 'vitest';
import type { ListEntity } from '../../../src/sources/list-entity.js';
import { describeWithRealData } from '../../support/real-lists.js';
import { ftmLines, jsonLines, parseFtm, realFtmFiles } from './ftm-data.js';
import { entityById } from './mirror.js';

const FADHLI = 'Q63183748';
const ZAKHAROV = 'NK-aU5ybkbRFJucf8YMwsJvDw';

function withoutProperty(entity: any, property: string): any {
  const { [property]: _dropped, ...properties } = entity.properties;
  return { ...entity, properties };
}

/**
 * Two targets and their adjacent entities, taken from the real samples, in both export layouts.
 *
 * From pep/wikidata_saudi_peps.ftm.jsonl: Abdulrahman Al-Fadhli (Q63183748), his Occupancy (he is
 * its only holder, from 2016-01-01) and the Position "Minister of Environment, Water and
 * Agriculture" (Q114452766), the one position he states. The file's Occupancies have no `post`;
 * this sample links his to that Position, as OpenSanctions' exports do.
 * From opensanctions/sanctions_sample_zala.ftm.jsonl: Alexander ZAKHAROV, his 13 Sanctions and
 * his Address entity.
 *
 * The nested layout is that of OpenSanctions' targets.nested.json: one line per target, adjacent
 * entities inside its properties (`positionOccupancies` > `post`, `sanctions`, `addressEntity`),
 * and the property of a nested entity that points back at its target left out.
 */
function sample(dataDir: string) {
  const { PEP_FILE, ZALA_FILE } = realFtmFiles(dataDir);
  const pep = ftmLines(PEP_FILE);
  const zala = ftmLines(ZALA_FILE);
  const fadhli = pep.find((e) => e.id === FADHLI);
  const position = pep.find((e) => e.id === 'Q114452766');
  const occupancy = pep.find((e) => e.schema === 'Occupancy' && e.properties.holder.includes(FADHLI));
  const linked = { ...occupancy, properties: { ...occupancy.properties, post: [position.id] } };
  const zakharov = zala.find((e) => e.id === ZAKHAROV);
  const sanctions = zala.filter((e) => e.schema === 'Sanction' && e.properties.entity.includes(ZAKHAROV));
  const addresses = zala.filter((e) => zakharov.properties.addressEntity.includes(e.id));
  const flat = [fadhli, linked, position, zakharov, ...sanctions, ...addresses];
  const nestedOccupancy = withoutProperty(
    { ...linked, properties: { ...linked.properties, post: [position] } },
    'holder',
  );
  const nested = [
    { ...fadhli, properties: { ...fadhli.properties, positionOccupancies: [nestedOccupancy] } },
    {
      ...zakharov,
      properties: {
        ...zakharov.properties,
        sanctions: sanctions.map((s) => withoutProperty(s, 'entity')),
        addressEntity: addresses,
      },
    },
  ];
  return { flat, nested, sanctionCount: sanctions.length };
}

const withoutRaw = ({ raw: _raw, ...entity }: ListEntity) => entity;

describeWithRealData('OpenSanctions FtM export: flat and nested layouts', (dataDir) => {
  it('a person whose Occupancy names its Position holds that position, dated, in either layout', async () => {
    const { flat, nested } = sample(dataDir);
    for (const [layout, lines] of [
      ['ftm_entities', flat],
      ['ftm_nested', nested],
    ] as const) {
      const parsed = await parseFtm(jsonLines(lines), {}, layout);
      expect(entityById(parsed, FADHLI).positions, layout).toEqual([
        { name: 'Minister of Environment, Water and Agriculture', start_date: '2016-01-01' },
      ]);
    }
  });

  it('the nested layout yields the same entities as the flat one, only its raw records are nested', async () => {
    const { flat, nested, sanctionCount } = sample(dataDir);
    expect(sanctionCount).toBe(13);
    const fromFlat = await parseFtm(jsonLines(flat));
    const fromNested = await parseFtm(jsonLines(nested), {}, 'ftm_nested');
    expect(fromNested.counts).toMatchObject({ entities: 2, records: 2 });
    expect(fromFlat.counts).toMatchObject({ entities: 2, records: flat.length });
    expect(fromNested.entities.map(withoutRaw)).toEqual(fromFlat.entities.map(withoutRaw));
    const zakharov = entityById(fromNested, ZAKHAROV);
    expect(zakharov.programs).toEqual(expect.arrayContaining(['EU-UKR', 'SECO-UKRAINE', 'US-RUSHAR']));
    expect(zakharov.addresses[0]).toMatchObject({ city: 'Izhevsk', country: 'RU' });
    expect((zakharov.raw.properties as any).sanctions).toHaveLength(13);
  });

  it('either file name may hold either layout: the layout is recognised line by line', async () => {
    const { nested } = sample(dataDir);
    const parsed = await parseFtm(jsonLines(nested), {}, 'ftm_entities');
    expect(entityById(parsed, FADHLI).positions?.[0]?.name).toBe(
      'Minister of Environment, Water and Agriculture',
    );
  });
});
