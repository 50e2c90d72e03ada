import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { ListEntity } from '../../../src/sources/list-entity.js';
import { buildFtmCollection } from '../../../src/sources/lists/ftm-collection/collection-build.js';
import { FtmCollection } from '../../../src/sources/lists/ftm-collection/ftm-collection.js';
import { ListParseError } from '../../../src/sources/lists/parsers/list-parse-error.js';
import type { ListInput } from '../../../src/sources/lists/parsers/types.js';
import { matchableEntity } from '../../../src/sources/matchable-entity.js';
import { ftmLines, HANDMADE_FILE, jsonLines, PEP_FILE, parseFtm } from './ftm-data.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A new folder for one test's collection version. */
function versionFolder(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'ftm-collection-'));
  folders.push(root);
  return path.join(root, 'opensanctions');
}

async function build(input: ListInput, folder = versionFolder()) {
  const manifest = await buildFtmCollection(input, 'entities.ftm.json', folder);
  const collection = FtmCollection.open(folder);
  const entities: ListEntity[] = [];
  for (let k = 0; k < collection.length; k++) entities.push(collection.at(k)!);
  return { manifest, collection, entities, folder };
}

const both = [readFileSync(HANDMADE_FILE), readFileSync(PEP_FILE)];

describe('the OpenSanctions collection built on disk from a stream', () => {
  it.each([
    ['the hand-made sanctions export', HANDMADE_FILE],
    ['the Wikidata PEP excerpt', PEP_FILE],
  ])('holds exactly the entities the in-memory parser reads from %s, in its order', async (_, file) => {
    const expected = await parseFtm(readFileSync(file));
    const { manifest, entities, collection } = await build(createReadStream(file));
    expect(entities).toEqual(expected.entities);
    expect(manifest).toMatchObject({
      entities: expected.entities.length,
      lines: expected.counts.records,
      skipped: expected.counts.skipped,
      listDate: expected.listDate,
    });
    collection.close();
  });

  it.each([
    ['the hand-made sanctions export', HANDMADE_FILE],
    ['the Wikidata PEP excerpt', PEP_FILE],
  ])(
    'joins each target of %s with its adjacent entities whether they come before or after it',
    async (_, file) => {
      const lines = ftmLines(file);
      const reversed = jsonLines([...lines].reverse());
      const { entities } = await build(reversed);
      expect(entities).toEqual((await parseFtm(reversed)).entities);
      const inOrder = (await parseFtm(jsonLines(lines))).entities;
      // The same records from either order, their programmes and positions listed in the order
      // their Sanctions and Occupancies came.
      const sorted = <T>(items: readonly T[] | undefined) =>
        items && [...items].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
      const normalised = (list: ListEntity[]) =>
        list
          .map((entity) => ({
            ...entity,
            programs: sorted(entity.programs),
            positions: sorted(entity.positions),
          }))
          .sort((a, b) => a.source_id.localeCompare(b.source_id));
      expect(normalised(entities)).toEqual(normalised(inOrder));
    },
  );

  it('reads a gzip-compressed export like the plain one', async () => {
    const plain = await build(both[1]!);
    const gzipped = await build(gzipSync(both[1]!));
    expect(gzipped.entities).toEqual(plain.entities);
  });

  it('reads the nested layout: adjacent entities inside their target', async () => {
    const lines = ftmLines(HANDMADE_FILE);
    const person = lines.find((line) => line.id === 'hm-person-orlovsky');
    const sanctions = lines
      .filter((line) => line.schema === 'Sanction' && line.properties.entity?.includes(person.id))
      .map(({ properties: { entity: _, ...rest }, ...line }) => ({ ...line, properties: rest }));
    const address = lines.find((line) => line.id === 'hm-address-orlovsky');
    const nested = { ...person, properties: { ...person.properties, sanctions, addressEntity: [address] } };
    const { entities } = await build(jsonLines([nested]));
    const flat = (await parseFtm(jsonLines(lines))).entities.find((e) => e.source_id === person.id)!;
    expect(entities).toHaveLength(1);
    expect(entities[0]).toMatchObject({
      source_id: person.id,
      programs: flat.programs,
      addresses: flat.addresses,
      names: flat.names,
    });
  });

  it('finds each entity by its id, and nothing for an id it does not hold', async () => {
    const { entities, collection } = await build(both[1]!);
    for (const entity of entities) expect(collection.get(entity.source_id)).toEqual(entity);
    expect(collection.get('Q0-not-there')).toBeUndefined();
    expect(collection.at(entities.length)).toBeUndefined();
  });

  it('lists every entity’s names for the index, in order', async () => {
    const { entities, collection } = await build(both[0]!);
    const names = [];
    for await (const line of collection.names()) names.push(line);
    expect(names).toEqual(
      entities.map((entity) => {
        const { kind, names } = matchableEntity(entity);
        return { id: entity.source_id, kind, names };
      }),
    );
  });

  it('keeps every relation between parties as read: owner, asset and share, relatives', async () => {
    const handmade = await build(both[0]!);
    const relations = [];
    for await (const relation of handmade.collection.relations()) relations.push(relation);
    expect(relations).toEqual([
      {
        id: 'hm-ownership-northwind',
        schema: 'Ownership',
        from: 'hm-company-northwind-holdings',
        to: 'hm-company-northwind',
        percentage: ['100'],
        datasets: ['ext_ru_egrul'],
      },
    ]);
    expect(handmade.manifest.relations).toBe(1);
    const pep = await build(both[1]!);
    const families = ftmLines(PEP_FILE).filter((line) => line.schema === 'Family');
    const read = [];
    for await (const relation of pep.collection.relations()) read.push(relation);
    expect(read.map((relation) => relation.id)).toEqual(families.map((line) => line.id));
    const first = families[0];
    expect(read[0]).toMatchObject({
      schema: 'Family',
      from: first.properties.person[0],
      to: first.properties.relative[0],
      role: first.properties.relationship,
    });
  });

  it('reads an export larger than the 256 MB the in-memory parser accepts', {
    timeout: 180_000,
  }, async () => {
    const lines = ftmLines(HANDMADE_FILE);
    const filler = (k: number) =>
      `${JSON.stringify({
        id: `filler-family-${k}`,
        schema: 'Family',
        properties: {
          person: [`nobody-${k}`],
          relative: [`nobody-else-${k}`],
          relationship: ['x'.repeat(400)],
        },
        datasets: ['filler'],
      })}\n`;
    const fillerLines = 600_000;
    let bytes = 0;
    async function* exported() {
      const chunks = [jsonLines(lines.slice(0, 5))];
      for (let k = 0; k < fillerLines; k += 1_000) {
        chunks.push(Buffer.from(Array.from({ length: 1_000 }, (_, j) => filler(k + j)).join('')));
        yield* chunks.splice(0).map((chunk) => {
          bytes += chunk.byteLength;
          return chunk;
        });
      }
      const last = jsonLines(lines.slice(5));
      bytes += last.byteLength;
      yield last;
    }
    const { manifest, entities } = await build(exported());
    expect(bytes).toBeGreaterThan(256 * 1024 * 1024);
    expect(manifest.lines).toBe(lines.length + fillerLines);
    expect(entities).toEqual((await parseFtm(jsonLines(lines))).entities);
  });

  it.each([
    [
      'cut short in the middle of a line',
      (bytes: Buffer) => bytes.subarray(0, bytes.lastIndexOf('"properties"')),
    ],
    ['not an export at all', () => Buffer.from('{"meta": {"version": 3}, "entities": []}\n')],
    ['empty', () => Buffer.alloc(0)],
    ['gzip cut short', (bytes: Buffer) => gzipSync(bytes).subarray(0, 200)],
  ])('a file %s is refused and the version in service stays whole', async (_, damage) => {
    const served = await build(both[0]!);
    const error = await buildFtmCollection(damage(both[1]!), 'entities.ftm.json', served.folder).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(Error);
    if (!String(error.message).includes('unexpected end of file'))
      expect(error).toBeInstanceOf(ListParseError);
    const after = FtmCollection.open(served.folder);
    expect(Array.from({ length: after.length }, (_, k) => after.at(k))).toEqual(served.entities);
    // Nothing half-written is left beside it.
    expect(readdirSync(path.dirname(served.folder))).toEqual([path.basename(served.folder)]);
    expect(existsSync(`${served.folder}.partial`)).toBe(false);
  });
});
