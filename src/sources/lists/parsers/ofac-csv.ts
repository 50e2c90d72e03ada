import { countryCode } from '../../entity-building/countries.js';
import {
  addCountry,
  addName,
  addPlaceOfBirth,
  newEntity,
  parseGender,
  surnameFirstName,
} from '../../entity-building/entity-draft.js';
import { clean, splitValues } from '../../entity-building/text.js';
import type { EntityKind, ListEntity, NameType } from '../../list-entity.js';
import { listIdentifier } from './identifier-types.js';
import { resolveLimits } from './limits.js';
import {
  ADD_COLUMNS,
  ALT_COLUMNS,
  groupByEntNum,
  PRIMARY_COLUMNS,
  readOfacRows,
  rowToRaw,
} from './ofac-csv-tables.js';
import { parseOfacRemarks } from './ofac-remarks.js';
import { findFile, finishResult, pushEntity, requireFile } from './result.js';
import type { ListFiles, ListParseOptions, ListParseResult } from './types.js';

/** The four files of one OFAC legacy CSV list, by official name. */
export interface OfacCsvFileNames {
  primary: string;
  alt: string;
  add: string;
  comments: string;
}

export const OFAC_SDN_CSV_FILES: OfacCsvFileNames = {
  primary: 'SDN.CSV',
  alt: 'ALT.CSV',
  add: 'ADD.CSV',
  comments: 'SDN_COMMENTS.CSV',
};
export const OFAC_CONS_CSV_FILES: OfacCsvFileNames = {
  primary: 'CONS_PRIM.CSV',
  alt: 'CONS_ALT.CSV',
  add: 'CONS_ADD.CSV',
  comments: 'CONS_COMMENTS.CSV',
};

const OFAC_DETAILS_URL = 'https://sanctionssearch.ofac.treas.gov/Details.aspx?id=';
const KINDS: Readonly<Record<string, EntityKind>> = {
  individual: 'person',
  vessel: 'vessel',
  aircraft: 'aircraft',
};
const ALIAS_TYPES: Readonly<Record<string, NameType>> = { aka: 'aka', fka: 'fka', nka: 'aka' };

interface Secondary {
  aliases: Map<string, string[][]>;
  addresses: Map<string, string[][]>;
  comments: Map<string, string[][]>;
}

/**
 * OFAC's legacy CSV edition (SDN or non-SDN consolidated): the primary file streamed row by row,
 * joined with its aliases, addresses and Remarks overflow read first (each a few MB at most).
 */
export async function parseOfacCsv(
  source: string,
  list: string,
  names: OfacCsvFileNames,
  files: ListFiles,
  options: ListParseOptions = {},
): Promise<ListParseResult> {
  const limits = resolveLimits(options.limits);
  const ctx = (file: string) => ({ list: source, file });
  const primary = requireFile(files, names.primary, source);
  const secondary: Secondary = {
    aliases: await groupByEntNum(
      requireFile(files, names.alt, source),
      ctx(names.alt),
      5,
      limits,
      options.signal,
    ),
    addresses: await groupByEntNum(
      requireFile(files, names.add, source),
      ctx(names.add),
      6,
      limits,
      options.signal,
    ),
    comments: await groupByEntNum(
      findFile(files, names.comments),
      ctx(names.comments),
      2,
      limits,
      options.signal,
    ),
  };
  const entities: ListEntity[] = [];
  const seen = new Set<string>();
  let records = 0;
  for await (const row of readOfacRows(primary, ctx(names.primary), 12, limits, options.signal)) {
    records++;
    const entity = toEntity(source, list, row.fields, secondary);
    if (seen.has(entity.source_id)) continue;
    seen.add(entity.source_id);
    pushEntity(entities, entity, limits, ctx(names.primary));
  }
  const warnings = orphanWarnings(secondary, seen, names);
  return finishResult({ source, entities, records, warnings }, ctx(names.primary));
}

function toEntity(source: string, list: string, fields: string[], secondary: Secondary): ListEntity {
  const entNum = fields[0]!.trim();
  const kind = KINDS[clean(fields[2])?.toLowerCase() ?? ''] ?? 'organization';
  const aliasRows = secondary.aliases.get(entNum) ?? [];
  const addressRows = secondary.addresses.get(entNum) ?? [];
  const remarks = joinRemarks(fields[11], secondary.comments.get(entNum));
  const raw = rowToRaw(fields, PRIMARY_COLUMNS);
  if (remarks) raw.Remarks = remarks;
  if (aliasRows.length > 0) raw.aliases = aliasRows.map((r) => rowToRaw(r, ALT_COLUMNS));
  if (addressRows.length > 0) raw.addresses = addressRows.map((r) => rowToRaw(r, ADD_COLUMNS));
  const entity = newEntity(source, list, entNum, kind, raw);
  entity.url = OFAC_DETAILS_URL + entNum;
  addOfacName(entity, fields[1], 'primary');
  for (const alias of aliasRows)
    addOfacName(entity, alias[3], ALIAS_TYPES[clean(alias[2])?.toLowerCase() ?? ''] ?? 'aka');
  entity.programs = splitValues(fields[3]?.replace(/^\s*\[|\]\s*$/g, ''), '] [');
  if (remarks) entity.remarks = remarks;
  addRemarkFacts(entity, remarks);
  addVesselFacts(entity, fields);
  for (const address of addressRows) addAddress(entity, address);
  return entity;
}

function addOfacName(entity: ListEntity, written: string | undefined, type: NameType): void {
  if (entity.kind === 'person') addName(entity, { ...surnameFirstName(written), type });
  else addName(entity, { full: written, type });
}

/** Remarks over 1,000 characters continue, verbatim, in the comments file. */
function joinRemarks(remarks: string | undefined, comments: string[][] | undefined): string | undefined {
  const overflow = comments?.map((row) => row[1] ?? '').join('') ?? '';
  return clean((clean(remarks) ?? '') + overflow);
}

function addRemarkFacts(entity: ListEntity, remarks: string | undefined): void {
  const facts = parseOfacRemarks(remarks);
  entity.birth_dates.push(...facts.birthDates);
  for (const place of facts.placesOfBirth) addPlaceOfBirth(entity, place);
  for (const nationality of facts.nationalities) addCountry(entity, nationality, true);
  for (const country of facts.countries) addCountry(entity, country);
  const gender = parseGender(facts.gender);
  if (gender) entity.gender = gender;
  for (const id of facts.identifiers)
    entity.identifiers.push(listIdentifier(id.label, id.value, countryCode(id.country)));
  for (const alias of facts.weakAliases) addOfacName(entity, alias, 'weak_aka');
}

function addVesselFacts(entity: ListEntity, fields: string[]): void {
  const callSign = clean(fields[5]);
  if (callSign) entity.identifiers.push({ type: 'call_sign', value: callSign, label: 'Call_Sign' });
  addCountry(entity, fields[9]);
}

function addAddress(entity: ListEntity, row: string[]): void {
  const parts = [row[2], row[3], row[4]].map(clean).filter((part): part is string => Boolean(part));
  if (parts.length === 0) return;
  const country = countryCode(row[4]);
  entity.addresses.push({ full: parts.join(', '), ...(country && { country }) });
  addCountry(entity, row[4]);
}

function orphanWarnings(secondary: Secondary, seen: Set<string>, names: OfacCsvFileNames): string[] {
  const warnings: string[] = [];
  const tables: [Map<string, string[][]>, string][] = [
    [secondary.aliases, names.alt],
    [secondary.addresses, names.add],
    [secondary.comments, names.comments],
  ];
  for (const [table, file] of tables) {
    const orphans = [...table.keys()].filter((key) => !seen.has(key));
    if (orphans.length > 0)
      warnings.push(
        `${file}: ${orphans.length} rows for ent_num absent from the list (${orphans.slice(0, 5).join(', ')})`,
      );
  }
  return warnings;
}
