import { prepareName } from '../../../matching/index.js';
import { countryCode } from '../../entity-building/countries.js';
import { parseBirthDate, parseFullDate } from '../../entity-building/dates.js';
import {
  addCountry,
  addName,
  addPlaceOfBirth,
  newEntity,
  surnameFirstName,
} from '../../entity-building/entity-draft.js';
import { clean, splitValues } from '../../entity-building/text.js';
import type { EntityKind, ListEntity, RawRecord } from '../../list-entity.js';
import { type CsvRow, readCsvRows, requireColumns } from './csv-rows.js';
import { listIdentifier } from './identifier-types.js';
import { resolveLimits } from './limits.js';
import { type FileContext, parseError } from './list-parse-error.js';
import { finishResult, pushEntity, requireFile } from './result.js';
import { openText } from './text-input.js';
import type { ListFiles, ListParseOptions, ListParseResult } from './types.js';
import { cslListName } from './us-csl-lists.js';

export const US_CSL_SOURCE = 'us_csl';
export const US_CSL_FILE = 'consolidated.csv';
/** While `ofac_sdn` is enabled its listings come from OFAC itself, not from the CSL copy. */
export const US_CSL_DEFAULT_SKIP_LISTS: readonly string[] = ['SDN'];

const REQUIRED_COLUMNS = ['_id', 'source', 'name', 'type', 'alt_names', 'programs', 'addresses', 'ids'];
const KINDS: Readonly<Record<string, EntityKind>> = {
  individual: 'person',
  entity: 'organization',
  vessel: 'vessel',
  aircraft: 'aircraft',
};
// `ids` entries that are facts about the entry rather than identifiers.
const NOT_IDENTIFIERS =
  /^(gender|additional sanctions information|secondary sanctions risk|transactions prohibited|executive order|caatsa|target type|organization (established date|type)|listing date|effective date|purchase\/sales|ifca|peesa|for more information)/i;

/** The US Consolidated Screening List CSV (trade.gov): 13 US export and sanctions lists. */
export async function parseUsCslCsv(
  files: ListFiles,
  options: ListParseOptions = {},
): Promise<ListParseResult> {
  const limits = resolveLimits(options.limits);
  const ctx = { list: US_CSL_SOURCE, file: US_CSL_FILE };
  const skip = new Set(options.skipLists ?? US_CSL_DEFAULT_SKIP_LISTS);
  const text = openText(requireFile(files, US_CSL_FILE, US_CSL_SOURCE), ctx, limits, options.signal);
  const entities: ListEntity[] = [];
  const seen = new Set<string>();
  let header: string[] | undefined;
  let records = 0;
  let skipped = 0;
  for await (const row of readCsvRows(text, ctx, limits)) {
    if (!header) {
      header = checkHeader(row, ctx);
      continue;
    }
    requireColumns(row, header.length, ctx);
    records++;
    const fields = Object.fromEntries(header.map((name, i) => [name, row.fields[i] ?? '']));
    const list = cslListName(fields.source ?? '');
    if (skip.has(list)) {
      skipped++;
      continue;
    }
    const entity = toEntity(fields, list, row, ctx);
    if (seen.has(entity.source_id)) continue;
    seen.add(entity.source_id);
    pushEntity(entities, entity, limits, ctx);
  }
  return finishResult({ source: US_CSL_SOURCE, entities, records, skipped }, ctx);
}

/**
 * Several of the CSL's lists (the Entity List, ITAR Debarred, Denied Persons, ...) leave `type`
 * empty. A name that holds a legal form (`LTD`, `GMBH`, `JSC`, ...) is an organisation's; any other
 * stays of unknown kind, which every typed query still matches.
 */
function kindFromName(name: string): EntityKind {
  return prepareName(name, 'entity').tokens.some((t) => t.cls === 'legal') ? 'organization' : 'unknown';
}

function checkHeader(row: CsvRow, ctx: FileContext): string[] {
  const header = row.fields.map((field) => field.trim());
  for (const column of REQUIRED_COLUMNS) {
    if (!header.includes(column))
      throw parseError(ctx, { line: row.line }, `header lacks the "${column}" column`);
  }
  return header;
}

/**
 * One row is one listing. `_id` repeats when the same party is on two sub-lists (SDN and SSI),
 * so the source id is the list name and the `_id`: unique within the file and stable over time,
 * joined by a character that needs no escaping in a URL path (flag ids go into decision paths).
 */
function toEntity(fields: Record<string, string>, list: string, row: CsvRow, ctx: FileContext): ListEntity {
  const id = clean(fields._id);
  if (!id) throw parseError(ctx, { line: row.line, record: row.record }, 'row without _id');
  const kind = KINDS[clean(fields.type)?.toLowerCase() ?? ''] ?? kindFromName(fields.name ?? '');
  const entity = newEntity(US_CSL_SOURCE, list, `${list}-${id}`, kind, compact(fields));
  const addCslName = (written: string, type: 'primary' | 'aka') =>
    addName(entity, kind === 'person' ? { ...surnameFirstName(written), type } : { full: written, type });
  addCslName(fields.name ?? '', 'primary');
  // The Entity List's aliases read like prose ("X; Y; and Z"): the 'and ' is not part of Z.
  for (const alias of splitValues(fields.alt_names)) addCslName(alias.replace(/^and\s+/, ''), 'aka');
  entity.programs = splitValues(fields.programs);
  const listedOn = parseFullDate(fields.start_date);
  if (listedOn) entity.listed_on = listedOn;
  const remarks = clean(fields.remarks);
  if (remarks) entity.remarks = remarks;
  const url = clean(fields.source_information_url) ?? clean(fields.source_list_url);
  if (url) entity.url = url;
  addPersonFacts(entity, fields);
  addIdentifiers(entity, fields.ids);
  addAddresses(entity, fields.addresses);
  return entity;
}

function addPersonFacts(entity: ListEntity, fields: Record<string, string>): void {
  for (const dob of splitValues(fields.dates_of_birth)) {
    const date = parseBirthDate(dob);
    if (date && !entity.birth_dates.includes(date)) entity.birth_dates.push(date);
  }
  for (const country of [...splitValues(fields.nationalities), ...splitValues(fields.citizenships)]) {
    addCountry(entity, country, true);
  }
  for (const place of splitValues(fields.places_of_birth)) addPlaceOfBirth(entity, place);
  addCountry(entity, fields.vessel_flag);
  const callSign = clean(fields.call_sign);
  if (callSign) entity.identifiers.push({ type: 'call_sign', value: callSign, label: 'call_sign' });
}

/** `ids` entries read "[country, ][issue date, expiry date, ]number, type", joined by '; '. */
function addIdentifiers(entity: ListEntity, ids: string | undefined): void {
  for (const entry of splitValues(ids)) {
    const comma = entry.lastIndexOf(', ');
    if (comma === -1) continue;
    const label = entry.slice(comma + 2).trim();
    if (NOT_IDENTIFIERS.test(label)) {
      if (/^gender$/i.test(label) && !entity.gender)
        entity.gender = /female/i.test(entry) ? 'female' : 'male';
      continue;
    }
    let pieces = entry.slice(0, comma).split(', ');
    const country = /^[A-Z]{2}$/.test(pieces[0] ?? '') && pieces.length > 1 ? pieces.shift() : undefined;
    pieces = pieces.filter((piece) => !/^\d{4}-\d{2}-\d{2}$/.test(piece));
    const value = clean(pieces.join(', '));
    if (!value) continue;
    const code = countryCode(country);
    entity.identifiers.push(listIdentifier(label, value, code));
  }
}

function addAddresses(entity: ListEntity, addresses: string | undefined): void {
  for (const full of splitValues(addresses)) {
    const country = /, ([A-Z]{2})$/.exec(full)?.[1] ?? (/^[A-Z]{2}$/.test(full) ? full : undefined);
    entity.addresses.push({ full, ...(country && { country }) });
    addCountry(entity, country);
  }
}

function compact(fields: Record<string, string>): RawRecord {
  const out: RawRecord = {};
  for (const [key, value] of Object.entries(fields)) {
    const text = clean(value);
    if (text && key !== '__proto__') out[key] = text;
  }
  return out;
}
