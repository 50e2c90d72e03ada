import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ListParseError } from '../../../src/sources/lists/parsers/index.js';
import { ftmLines, HANDMADE_FILE, jsonLines, PEP_FILE, parseFtm } from './ftm-data.js';

/** The PEP excerpt: 115 lines, 18 target persons, 85 Family lines. */
const PEP_LINES = 115;
const PEP_TARGETS = 18;

async function parseError(promise: Promise<unknown>): Promise<ListParseError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ListParseError);
  return error as ListParseError;
}

/** The PEP file with its first `count` Family lines damaged, and their line numbers. */
function damagedPepFile(count: number, damage: (line: string) => string): { text: string; lines: number[] } {
  const lines = readFileSync(PEP_FILE, 'utf8').split('\n');
  const family = lines.flatMap((line, i) => (line.includes('"schema":"Family"') ? [i] : []));
  const picked = family.slice(0, count);
  for (const i of picked) lines[i] = damage(lines[i]!);
  return { text: lines.join('\n'), lines: picked.map((i) => i + 1) };
}

describe('FtM files that are damaged or not FtM at all', () => {
  it('skips a few lines that are not entities, counts them and names them in a warning', async () => {
    // As many as 1% of the lines allows.
    const few = Math.floor(PEP_LINES / 100);
    const { text, lines } = damagedPepFile(few, (line) => line.slice(0, 40));
    const parsed = await parseFtm(Buffer.from(text));
    expect(parsed.counts).toMatchObject({ entities: PEP_TARGETS, records: PEP_LINES, skipped: few });
    expect(parsed.warnings).toEqual([
      `entities.ftm.json: lines that are not FtM entities, skipped: ${few} (lines ${lines.join(', ')})`,
    ]);
  });

  it('refuses a file where more than 1% of the lines are not entities, naming the first', async () => {
    const { text, lines } = damagedPepFile(20, () => '{"note": "not an entity"}');
    const error = await parseError(parseFtm(Buffer.from(text)));
    expect(error).toMatchObject({
      list: 'opensanctions',
      file: 'entities.ftm.json',
      position: { line: lines[0] },
    });
    expect(error.reason).toBe(
      `20 of ${PEP_LINES} lines are not FollowTheMoney entities (damaged or not an FtM export)`,
    );
  });

  it('refuses a JSON document or a CSV file at its first line, so the version in service stays', async () => {
    const array = Buffer.from(JSON.stringify(ftmLines(HANDMADE_FILE), null, 2));
    const error = await parseError(parseFtm(array));
    expect(error.position).toEqual({ line: 1, record: 1 });
    expect(error.reason).toMatch(/^not a FollowTheMoney entity/);
    const csv = Buffer.from('id,schema,name\nQ1,Person,Someone\n');
    expect((await parseError(parseFtm(csv))).reason).toMatch(/^not a FollowTheMoney entity/);
  });

  it('refuses an HTML page, an empty file and a file of blank lines', async () => {
    const html = Buffer.from('<!DOCTYPE html><html><body>Service unavailable</body></html>');
    expect((await parseError(parseFtm(html))).reason).toMatch(/HTML page instead of the list file/);
    expect((await parseError(parseFtm(Buffer.alloc(0)))).reason).toBe('file is empty');
    expect((await parseError(parseFtm(Buffer.from('\n\n  \n')))).reason).toBe('file holds no list entries');
  });

  it('refuses a line longer than the record cap and a file over the entity cap', async () => {
    const pep = readFileSync(PEP_FILE);
    const long = await parseError(parseFtm(pep, { limits: { maxRecordChars: 1_000 } }));
    expect(long.reason).toBe('line is longer than 1000 characters');
    expect(long.position.line).toBeGreaterThan(0);
    const many = await parseError(parseFtm(pep, { limits: { maxEntities: 10 } }));
    expect(many.reason).toBe('more than 10 entries');
  });

  it('reads a gzip-compressed export like the plain one', async () => {
    const parsed = await parseFtm(gzipSync(readFileSync(PEP_FILE)));
    expect(parsed.counts.entities).toBe(PEP_TARGETS);
  });

  it('keeps the first of two entities with one id, and says so', async () => {
    const sanctions = ftmLines(HANDMADE_FILE);
    const target = sanctions.find((e) => e.target && e.schema === 'Person');
    const copy = { ...target, caption: 'Someone Else', properties: { name: ['Someone Else'] } };
    const parsed = await parseFtm(jsonLines([...sanctions, copy]));
    expect(parsed.counts.entities).toBe(3);
    expect(parsed.entities.find((e) => e.source_id === target.id)?.names[0]?.full).not.toBe('Someone Else');
    expect(parsed.warnings).toEqual([
      'entities.ftm.json: entities repeating an id already read (the first kept): 1',
    ]);
  });
});
