import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import type { EntityKind, MatchableEntity, MatchableName, NameType } from '../../src/matching/index.js';

/**
 * A minimal loader of names from a folder of the whole official list files, for benchmarks and
 * property tests of the matching engine. It reads only what matching needs (names, kinds, alias
 * types); the real list parsers live in src/sources/lists/ and are not a dependency of matching.
 */

/**
 * The folder of whole list files a benchmark reads, named by `LISTS_DIR` as for the service (for
 * example a mirror of the official files). The lists are not in the repository: without it the benchmark
 * says so in one line and stops, successfully, so that a script running every bench goes on.
 */
export function benchListsDir(bench: string): string {
  const dir = process.env.LISTS_DIR;
  if (!dir) {
    console.log(`${bench} skipped: set LISTS_DIR to a folder of the official list files.`);
    process.exit(0);
  }
  return path.resolve(dir);
}

function readCsv(dir: string, file: string, options: Record<string, unknown> = {}): string[][] {
  let buffer = readFileSync(path.join(dir, file));
  if (file.endsWith('.gz')) buffer = gunzipSync(buffer);
  // OFAC's legacy files end with a 0x1A byte and write null as `-0-`.
  const text = buffer.toString('utf8').replaceAll(String.fromCharCode(0x1a), '');
  return parse(text, { relax_column_count: true, relax_quotes: true, skip_empty_lines: true, ...options });
}

const clean = (value: string | undefined) => (value ?? '').replace(/^-0-\s*$/, '').trim();

function ofacKind(type: string): EntityKind {
  const t = clean(type).toLowerCase();
  return t === 'individual'
    ? 'person'
    : t === 'vessel'
      ? 'vessel'
      : t === 'aircraft'
        ? 'aircraft'
        : 'organization';
}

function loadOfac(dir: string, source: string, primaryFile: string, altFile: string): MatchableEntity[] {
  const byId = new Map<string, MatchableEntity>();
  for (const row of readCsv(dir, primaryFile)) {
    const name = clean(row[1]);
    if (!row[0] || !name) continue;
    byId.set(row[0], {
      key: `${source}:${row[0]}`,
      source,
      kind: ofacKind(row[2] ?? ''),
      names: [{ full: name, type: 'primary' }],
    });
  }
  for (const row of readCsv(dir, altFile)) {
    const entity = byId.get(row[0] ?? '');
    const name = clean(row[3]);
    if (!entity || !name) continue;
    entity.names.push({ full: name, type: clean(row[2]) === 'fka' ? 'fka' : 'aka' });
  }
  return [...byId.values()];
}

function tag(block: string, name: string): string[] {
  return [...block.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((m) =>
    decodeXml(m[1]!).trim(),
  );
}

function decodeXml(text: string): string {
  return text
    .replace(/&apos;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function loadUn(dir: string): MatchableEntity[] {
  const xml = readFileSync(path.join(dir, 'consolidated.xml'), 'utf8');
  const out: MatchableEntity[] = [];
  for (const [kind, element] of [
    ['person', 'INDIVIDUAL'],
    ['organization', 'ENTITY'],
  ] as const) {
    for (const m of xml.matchAll(new RegExp(`<${element}>([\\s\\S]*?)</${element}>`, 'g'))) {
      const block = m[1]!;
      const primary = ['FIRST_NAME', 'SECOND_NAME', 'THIRD_NAME', 'FOURTH_NAME']
        .flatMap((t) => tag(block, t))
        .join(' ');
      const names: MatchableName[] = primary ? [{ full: primary, type: 'primary' }] : [];
      for (const alias of block.matchAll(
        /<(?:INDIVIDUAL|ENTITY)_ALIAS>([\s\S]*?)<\/(?:INDIVIDUAL|ENTITY)_ALIAS>/g,
      )) {
        const quality = tag(alias[1]!, 'QUALITY')[0] ?? '';
        for (const full of tag(alias[1]!, 'ALIAS_NAME'))
          if (full) names.push({ full, type: quality === 'Low' ? 'weak_aka' : 'aka' });
      }
      for (const full of tag(block, 'NAME_ORIGINAL_SCRIPT'))
        if (full) names.push({ full, type: 'original_script' });
      const id = tag(block, 'DATAID')[0];
      if (id && names.length > 0) out.push({ key: `un_sc:${id}`, source: 'un_sc', kind, names });
    }
  }
  return out;
}

function loadOfsi(dir: string): MatchableEntity[] {
  const rows = readCsv(dir, 'ConList.csv.gz').slice(2);
  const byGroup = new Map<string, MatchableEntity>();
  for (const row of rows) {
    const full = [1, 2, 3, 4, 5, 0]
      .map((i) => clean(row[i]))
      .filter(Boolean)
      .join(' ');
    const group = row[35];
    if (!full || !group) continue;
    const type = row[28] ?? '';
    const kind: EntityKind = type === 'Individual' ? 'person' : type === 'Ship' ? 'vessel' : 'organization';
    const entity = byGroup.get(group) ?? { key: `uk_ofsi:${group}`, source: 'uk_ofsi', kind, names: [] };
    const nameType: NameType =
      row[29] === 'Primary name' ? 'primary' : row[30] === 'Low quality' ? 'weak_aka' : 'aka';
    entity.names.push({ full, type: nameType });
    const nonLatin = clean(row[7]);
    if (nonLatin) entity.names.push({ full: nonLatin, type: 'original_script' });
    byGroup.set(group, entity);
  }
  return [...byGroup.values()];
}

function loadCsl(dir: string): MatchableEntity[] {
  const rows = readCsv(dir, 'consolidated.csv.gz', { columns: true }) as unknown as Record<string, string>[];
  return rows.flatMap((row) => {
    const name = clean(row.name);
    if (!name || !row._id) return [];
    const type = (row.type ?? '').toLowerCase();
    const kind: EntityKind =
      type === 'individual'
        ? 'person'
        : type === 'vessel'
          ? 'vessel'
          : type === 'aircraft'
            ? 'aircraft'
            : type === 'entity'
              ? 'organization'
              : 'unknown';
    const aliases = (row.alt_names ?? '')
      .split(';')
      .map((a) => a.trim())
      .filter(Boolean);
    const names: MatchableName[] = [
      { full: name, type: 'primary' },
      ...aliases.map((full) => ({ full, type: 'aka' as const })),
    ];
    return [{ key: `us_csl:${row._id}`, source: 'us_csl', kind, names }];
  });
}

/** Every entity of the OFAC SDN and consolidated, UN, UK OFSI and US CSL files of `dir`. */
export function loadListEntities(dir: string): MatchableEntity[] {
  return [
    ...loadOfac(dir, 'ofac_sdn', 'sdn.csv', 'alt.csv'),
    ...loadOfac(dir, 'ofac_cons', 'cons_prim.csv', 'cons_alt.csv'),
    ...loadUn(dir),
    ...loadOfsi(dir),
    ...loadCsl(dir),
  ];
}
