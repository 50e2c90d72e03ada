import { countryCode } from '../../entity-building/countries.js';
import { parseBirthDate, parseFullDate } from '../../entity-building/dates.js';
import {
  addCountry,
  addName,
  addPlaceOfBirth,
  joinName,
  newEntity,
  parseGender,
} from '../../entity-building/entity-draft.js';
import { clean, pushUnique, splitEnumerated } from '../../entity-building/text.js';
import type { EntityKind, ListEntity, NameType, RawRecord } from '../../list-entity.js';
import { readCsvRows, requireColumns, takeFirstLine } from './csv-rows.js';
import { addImoNumbersFrom, listIdentifier } from './identifier-types.js';
import { resolveLimits } from './limits.js';
import { type FileContext, parseError } from './list-parse-error.js';
import { finishResult, pushEntity, requireFile } from './result.js';
import { openText } from './text-input.js';
import type { ListFiles, ListParseOptions, ListParseResult } from './types.js';

export const UK_OFSI_SOURCE = 'uk_ofsi';
export const UK_OFSI_LIST = 'UK_CONSOLIDATED';
export const UK_OFSI_FILE = 'ConList.csv';

const COLUMN_COUNT = 36;
const KINDS: Readonly<Record<string, EntityKind>> = {
  individual: 'person',
  entity: 'organization',
  ship: 'vessel',
};
type Row = Record<string, string>;

/**
 * OFSI's Consolidated List CSV: a 'Last Updated' line, a header, then one row per name variant
 * (repeated again for each further address or date of birth), grouped into targets by Group ID.
 */
export async function parseUkOfsiCsv(
  files: ListFiles,
  options: ListParseOptions = {},
): Promise<ListParseResult> {
  const limits = resolveLimits(options.limits);
  const ctx = { list: UK_OFSI_SOURCE, file: UK_OFSI_FILE };
  const opened = openText(requireFile(files, UK_OFSI_FILE, UK_OFSI_SOURCE), ctx, limits, options.signal);
  const { first, rest } = await takeFirstLine(opened);
  const preamble = /^"?Last Updated"?\s*,\s*"?([^",]*)/i.exec(first);
  const listDate = preamble ? parseFullDate(preamble[1]) : undefined;
  const text = preamble ? rest : prependText(`${first}\n`, rest);
  const groups = new Map<string, ListEntity>();
  const entities: ListEntity[] = [];
  let header: string[] | undefined;
  let records = 0;
  for await (const row of readCsvRows(text, ctx, limits, { firstLine: preamble ? 2 : 1 })) {
    if (!header) {
      header = checkHeader(row.fields, ctx, row.line);
      continue;
    }
    requireColumns(row, COLUMN_COUNT, ctx);
    records++;
    const fields: Row = Object.fromEntries(header.map((name, i) => [name, row.fields[i] ?? '']));
    const groupId = clean(fields['Group ID']);
    if (!groupId) throw parseError(ctx, { line: row.line, record: row.record }, 'row without Group ID');
    let entity = groups.get(groupId);
    if (!entity) {
      entity = newGroup(groupId, fields);
      groups.set(groupId, entity);
      pushEntity(entities, entity, limits, ctx);
    }
    addRow(entity, fields);
  }
  for (const entity of entities) promotePrimary(entity);
  return finishResult({ source: UK_OFSI_SOURCE, entities, records, ...(listDate && { listDate }) }, ctx);
}

function checkHeader(fields: string[], ctx: FileContext, line: number): string[] {
  const header = fields.map((field) => field.trim());
  for (const required of ['Name 6', 'Group ID', 'Group Type', 'Alias Type']) {
    if (!header.includes(required)) throw parseError(ctx, { line }, `header lacks the "${required}" column`);
  }
  if (header.length !== COLUMN_COUNT) {
    throw parseError(ctx, { line }, `expected ${COLUMN_COUNT} columns in the header, found ${header.length}`);
  }
  return header;
}

function newGroup(groupId: string, fields: Row): ListEntity {
  const kind = KINDS[clean(fields['Group Type'])?.toLowerCase() ?? ''] ?? 'unknown';
  const raw: RawRecord = { 'Group ID': groupId, rows: [] };
  const entity = newEntity(UK_OFSI_SOURCE, UK_OFSI_LIST, groupId, kind, raw);
  const listedOn = parseFullDate(fields['Listed On']);
  if (listedOn) entity.listed_on = listedOn;
  const remarks = clean(fields['Other Information']);
  if (remarks) entity.remarks = remarks;
  addImoNumbersFrom(entity, remarks, 'Other Information');
  const gender = parseGender(/\(Gender\):\s*(\w+)/.exec(remarks ?? '')?.[1]);
  if (gender) entity.gender = gender;
  return entity;
}

function aliasType(fields: Row): NameType {
  const type = clean(fields['Alias Type'])?.toLowerCase() ?? '';
  if (type === 'primary name') return 'primary';
  if (type === 'fka') return 'fka';
  if (/low/i.test(fields['Alias Quality'] ?? '')) return 'weak_aka';
  return 'aka';
}

/** Adds one row's name variant and the facts it repeats or adds. */
function addRow(entity: ListEntity, fields: Row): void {
  (entity.raw.rows as RawRecord[]).push(compactRow(fields));
  const given = clean(fields['Name 1']);
  const middle = joinName(fields['Name 2'], fields['Name 3'], fields['Name 4'], fields['Name 5']);
  const family = clean(fields['Name 6']);
  // Rows repeat the primary name once per address or birth date; only the first is primary.
  let type = aliasType(fields);
  if (type === 'primary' && entity.names.some((name) => name.type === 'primary')) type = 'aka';
  addName(entity, { full: joinName(given, middle, family), type, parts: { given, middle, family } });
  addName(entity, { full: fields['Name Non-Latin Script'], type: 'original_script' });
  pushUnique(entity.programs, clean(fields.Regime));
  const date = parseBirthDate(fields.DOB);
  if (date && !entity.birth_dates.includes(date)) entity.birth_dates.push(date);
  addPlaceOfBirth(
    entity,
    [clean(fields['Town of Birth']), clean(fields['Country of Birth'])].filter(Boolean).join(', '),
  );
  for (const nationality of splitEnumerated(fields.Nationality)) addCountry(entity, nationality, true);
  addDocument(entity, fields['Passport Number'], 'Passport');
  addDocument(entity, fields['National Identification Number'], 'National Identification Number');
  addAddress(entity, fields);
}

function addDocument(entity: ListEntity, value: string | undefined, label: string): void {
  for (const number of splitEnumerated(value)) {
    if (entity.identifiers.some((id) => id.value === number && id.label === label)) continue;
    entity.identifiers.push(listIdentifier(label, number));
  }
}

function addAddress(entity: ListEntity, fields: Row): void {
  const lines = [1, 2, 3, 4, 5, 6].map((n) => clean(fields[`Address ${n}`]));
  const country = clean(fields.Country);
  const full = clean([...lines, clean(fields['Post/Zip Code']), country].filter(Boolean).join(', '));
  if (!full || entity.addresses.some((address) => address.full === full)) return;
  const code = countryCode(country);
  entity.addresses.push({ full, ...(code && { country: code }) });
  addCountry(entity, country);
}

/** Puts the primary name first; a group without a 'Primary name' row promotes its first name. */
function promotePrimary(entity: ListEntity): void {
  const index = entity.names.findIndex((name) => name.type === 'primary');
  if (index > 0) entity.names.unshift(...entity.names.splice(index, 1));
  else if (index === -1 && entity.names[0]) entity.names[0].type = 'primary';
}

function compactRow(fields: Row): RawRecord {
  const out: RawRecord = {};
  for (const [key, value] of Object.entries(fields)) {
    const text = clean(value);
    if (text && key !== 'Group ID' && key !== '__proto__') out[key] = text;
  }
  return out;
}

async function* prependText(first: string, rest: AsyncIterable<string>): AsyncGenerator<string> {
  yield first;
  yield* rest;
}
