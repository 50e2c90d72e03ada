import { clean } from '../../entity-building/text.js';
import type { RawRecord } from '../../list-entity.js';
import { type CsvRow, readCsvRows, requireColumns } from './csv-rows.js';
import type { ListParseLimits } from './limits.js';
import { type FileContext, parseError } from './list-parse-error.js';
import { openText } from './text-input.js';
import type { ListInput } from './types.js';

export const ALT_COLUMNS = ['ent_num', 'alt_num', 'alt_type', 'alt_name', 'alt_remarks'] as const;
export const ADD_COLUMNS = [
  'ent_num',
  'Add_num',
  'Address',
  'City/State/Province/Postal Code',
  'Country',
  'Add_remarks',
] as const;
export const PRIMARY_COLUMNS = [
  'ent_num',
  'SDN_Name',
  'SDN_Type',
  'Program',
  'Title',
  'Call_Sign',
  'Vess_type',
  'Tonnage',
  'GRT',
  'Vess_flag',
  'Vess_owner',
  'Remarks',
] as const;

/** Reads one of OFAC's headerless CSV files, checking every row's width and its ent_num. */
export async function* readOfacRows(
  input: ListInput,
  ctx: FileContext,
  columns: number,
  limits: ListParseLimits,
  signal?: AbortSignal,
): AsyncGenerator<CsvRow> {
  for await (const row of readCsvRows(openText(input, ctx, limits, signal), ctx, limits, {
    relaxQuotes: true,
  })) {
    requireColumns(row, columns, ctx);
    if (!/^\d+$/.test(row.fields[0]!.trim())) {
      throw parseError(
        ctx,
        { line: row.line, record: row.record },
        `ent_num "${row.fields[0]}" is not a number`,
      );
    }
    yield row;
  }
}

/** A row as a raw record keyed by OFAC's column names, '-0-' nulls left out. */
export function rowToRaw(fields: readonly string[], columns: readonly string[]): RawRecord {
  const raw: RawRecord = {};
  columns.forEach((column, i) => {
    const value = clean(fields[i]);
    if (value) raw[column] = value;
  });
  return raw;
}

/** Groups the rows of a secondary file (aliases, addresses, comments) by ent_num. */
export async function groupByEntNum(
  input: ListInput | undefined,
  ctx: FileContext,
  columns: number,
  limits: ListParseLimits,
  signal?: AbortSignal,
): Promise<Map<string, string[][]>> {
  const groups = new Map<string, string[][]>();
  if (input === undefined) return groups;
  for await (const row of readOfacRows(input, ctx, columns, limits, signal)) {
    const key = row.fields[0]!.trim();
    const group = groups.get(key);
    if (group) group.push(row.fields);
    else groups.set(key, [row.fields]);
  }
  return groups;
}
