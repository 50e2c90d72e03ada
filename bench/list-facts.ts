import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { LIST_PARSERS } from '../src/sources/lists/list-registry.js';
import { matchesOfficialFileName } from '../src/sources/lists/parsers/index.js';

/**
 * What each list of `LISTS_DIR` states besides names (`npm run eval:list-facts`): per list, its
 * records, people, people with a birth date, records with a nationality, with a country, with an
 * identifier, and identifiers by kind. The table of docs/lists.md.
 */
const listsDir = process.env.LISTS_DIR;
if (!listsDir) {
  console.log('eval:list-facts skipped: set LISTS_DIR to a folder of the official list files.');
  process.exit(0);
}
const files = readdirSync(listsDir);
const done = new Set<string>();
console.log(
  '| list | records | people | people with a birth date | records with a nationality | records with a country | records with an identifier | identifiers by kind (records) |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const parser of LIST_PARSERS) {
  if (done.has(parser.id)) continue;
  const found = new Map<string, Uint8Array>();
  for (const spec of parser.files) {
    const name = files.find((f) => matchesOfficialFileName(spec.name, f));
    if (name) found.set(spec.name, readFileSync(path.join(listsDir, name)));
  }
  if (parser.files.some((spec) => spec.required && !found.has(spec.name))) continue;
  done.add(parser.id);
  // The CSL's SDN rows are kept: the table describes the file, not what a screening skips.
  const { entities } = await parser.parse(found, parser.id === 'us_csl' ? { skipLists: [] } : {});
  const people = entities.filter((e) => e.kind === 'person');
  const kinds = new Map<string, number>();
  for (const e of entities)
    for (const kind of new Set(e.identifiers.map((i) => i.type))) kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  const byKind = [...kinds]
    .sort((a, b) => b[1] - a[1])
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  const count = (list: typeof entities, test: (e: (typeof entities)[number]) => boolean) =>
    list.filter(test).length;
  console.log(
    `| \`${parser.id}\` | ${entities.length} | ${people.length} | ${count(people, (e) => e.birth_dates.length > 0)} | ` +
      `${count(entities, (e) => (e.nationalities ?? []).length > 0)} | ${count(entities, (e) => e.countries.length > 0)} | ` +
      `${count(entities, (e) => e.identifiers.length > 0)} | ${byKind} |`,
  );
}
