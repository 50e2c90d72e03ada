import { Readable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import type { Plan } from '../../accounts/plans.js';
import { type FieldError, NUL_CHARACTER_DETAIL, ServiceError } from '../../errors.js';
import type { Source } from '../../sources/source.js';
import { WorkSlices } from '../../work-slices.js';
import { IDENTIFIER_TYPES } from '../screening-facts.js';
import {
  type ResolvedScreening,
  resolveScreeningRequest,
  type ScreeningRequest,
} from '../screening-request.js';
import { QUERY_TYPES, type QueryType } from '../screening-result.js';
import { BATCH_ITEMS_MAX } from './batch-policy.js';

type ItemOptions = NonNullable<ScreeningRequest['options']>;

/** A batch as submitted in JSON (the CSV form is read into the same shape). */
export interface BatchSubmission {
  items: Array<ScreeningRequest & { reference?: string | undefined }>;
  options?: ItemOptions | undefined;
  /** What a CSV's rows got wrong in reading (a type or identifier unknown): reported with the rest. */
  rowErrors?: FieldError[] | undefined;
  /** A CSV's line of each item (1 is the header; blank lines and quoted line breaks counted). */
  lines?: number[] | undefined;
}

/** One item ready to be stored: the request exactly as `POST /v1/screen` would receive it. */
export interface BatchItemInput {
  index: number;
  reference: string | null;
  request: ScreeningRequest;
  /** The request as validating it resolved it (undefined only while the batch is refused). */
  resolved: ResolvedScreening | undefined;
}

const CSV_COLUMNS = ['query', 'type', 'reference', 'date_of_birth', 'countries', 'identifiers'];

function invalid(detail: string, errors: FieldError[]): ServiceError {
  return new ServiceError('validation-failed', detail, errors);
}

/**
 * Bytes handed to the CSV reader at a time: it reads each in one piece (2,000 one-letter rows take
 * it a few milliseconds), and other requests get their turn between them.
 */
const CSV_CHUNK_BYTES = 4 * 1024;

/**
 * Reads a CSV batch: a header row naming `query` and optionally `type`, `reference`,
 * `date_of_birth`, `countries` (`;`-separated codes) and `identifiers` (`type:value;type:value`),
 * then one item per row. Errors point at `/items/<index>/<column>` like the JSON form's, with the
 * line; the facts are checked as the JSON form's are, when the items are, and reported together
 * with what a row got wrong in reading. The text is read a slice at a time (`WorkSlices`): a
 * 100,000-row CSV takes seconds of CPU, during which the other requests are answered.
 */
export async function submissionFromCsv(text: string): Promise<BatchSubmission> {
  const slices = new WorkSlices();
  const { rows, lines } = await csvRecords(text, slices);
  const [header, ...body] = rows;
  const lineOf = (index: number) => lines[index + 1] ?? index + 2;
  const columns = (header ?? []).map((c) => c.trim().toLowerCase());
  const unknown = columns.filter((c) => !CSV_COLUMNS.includes(c));
  if (!columns.includes('query') || unknown.length > 0) {
    throw invalid(
      `The CSV header must name a \`query\` column and may name ${CSV_COLUMNS.slice(1).join(', ')}.`,
      [
        {
          pointer: '/',
          detail: unknown.length > 0 ? `unknown columns: ${unknown.join(', ')}` : 'no query column',
        },
      ],
    );
  }
  const at = (name: string) => columns.indexOf(name);
  const errors: FieldError[] = [];
  const items: BatchSubmission['items'] = [];
  for (const [index, row] of body.entries()) {
    if (slices.due()) await slices.pause();
    row.forEach((cell, c) => {
      if (cell.includes('\u0000'))
        errors.push({
          pointer: `/items/${index}/${columns[c]}`,
          detail: `line ${lineOf(index)}: ${NUL_CHARACTER_DETAIL}`,
        });
    });
    const type = at('type') >= 0 ? (row[at('type')] ?? '').trim() : '';
    const known = (QUERY_TYPES as readonly string[]).includes(type);
    if (type !== '' && !known) {
      errors.push({
        pointer: `/items/${index}/type`,
        detail: `line ${lineOf(index)}: must be one of ${QUERY_TYPES.join(', ')}`,
      });
    }
    const reference = at('reference') >= 0 ? row[at('reference')] : undefined;
    const cell = (name: string) => (at(name) >= 0 ? (row[at(name)] ?? '').trim() : '');
    const identifiers = splitCell(cell('identifiers')).map((pair) => {
      const colon = pair.indexOf(':');
      if (colon <= 0) {
        errors.push({
          pointer: `/items/${index}/identifiers`,
          detail: `line ${lineOf(index)}: each identifier is written type:value`,
        });
        return { type: 'other', value: pair };
      }
      return { type: pair.slice(0, colon).trim(), value: pair.slice(colon + 1).trim() };
    });
    const unknownKinds = identifiers.filter(
      (id) => !(IDENTIFIER_TYPES as readonly string[]).includes(id.type),
    );
    if (unknownKinds.length > 0) {
      errors.push({
        pointer: `/items/${index}/identifiers`,
        detail: `line ${lineOf(index)}: unknown identifier types: ${unknownKinds.map((id) => id.type).join(', ')}`,
      });
    }
    const query = row[at('query')] ?? '';
    items.push({
      ...(query !== '' || identifiers.length === 0 ? { query } : {}),
      ...(known ? { type: type as QueryType } : {}),
      ...(reference ? { reference } : {}),
      ...(cell('date_of_birth') !== '' ? { date_of_birth: cell('date_of_birth') } : {}),
      ...(cell('countries') !== '' ? { countries: splitCell(cell('countries')) } : {}),
      ...(identifiers.length > 0 ? { identifiers } : {}),
    } as BatchSubmission['items'][number]);
  }
  return { items, lines: lines.slice(1), ...(errors.length > 0 ? { rowErrors: errors } : {}) };
}

/**
 * The CSV's records, and the line each starts on, worked out from the bytes read at each record's
 * end (the reader's own line count counts a quoted CR LF twice): blank lines, skipped, still move
 * the records after them. The reader is fed a chunk at a time and its records taken a slice at a
 * time.
 */
async function csvRecords(text: string, slices: WorkSlices): Promise<{ rows: string[][]; lines: number[] }> {
  const bytes = Buffer.from(text);
  function* chunks() {
    for (let at = 0; at < bytes.length; at += CSV_CHUNK_BYTES) yield bytes.subarray(at, at + CSV_CHUNK_BYTES);
  }
  const reader = Readable.from(chunks()).pipe(
    parseCsv({ bom: true, skip_empty_lines: true, relax_column_count: false, trim: false, info: true }),
  );
  const rows: string[][] = [];
  const lines: number[] = [];
  let line = 1;
  let at = 0;
  try {
    for await (const { record, info } of reader as AsyncIterable<{
      record: string[];
      info: { bytes: number };
    }>) {
      for (; at < info.bytes && (bytes[at] === 0x0a || bytes[at] === 0x0d); at++)
        if (bytes[at] === 0x0a) line++;
      lines.push(line);
      for (; at < info.bytes; at++) if (bytes[at] === 0x0a) line++;
      rows.push(record);
      if (slices.due()) await slices.pause();
    }
  } catch (error) {
    const detail = error instanceof Error ? error.message : 'unreadable CSV';
    throw invalid('The CSV body could not be read.', [{ pointer: '/', detail }]);
  }
  return { rows, lines };
}

/** A cell's `;`-separated values, trimmed, empty ones left out. */
function splitCell(text: string): string[] {
  return text
    .split(';')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/**
 * Validates every item up front, as `POST /v1/screen` would validate it alone (with the batch's
 * options as defaults), and lists every bad item by index and pointer: a batch (or an import of
 * monitors) is taken whole or not at all. Plan-wide refusals (no source configured) are thrown as
 * they are. The items are checked a slice at a time (`WorkSlices`), so other requests are answered
 * while a large list is.
 */
export async function checkBatchItems(
  submission: BatchSubmission,
  plan: Plan,
  configured: readonly Source[],
  today: string,
  limit: ItemsLimit = BATCH_ITEMS_LIMIT,
): Promise<BatchItemInput[]> {
  const { items } = submission;
  assertItemCount(items.length, limit);
  const slices = new WorkSlices();
  const errors: FieldError[] = [...(submission.rowErrors ?? [])];
  const checked: BatchItemInput[] = [];
  for (const [index, item] of items.entries()) {
    if (slices.due()) await slices.pause();
    const request: ScreeningRequest = {
      ...(item.query !== undefined ? { query: item.query } : {}),
      ...(item.type ? { type: item.type } : {}),
      // The reference is the item's subject: decisions taken on its flags belong to it.
      ...(item.reference !== undefined ? { reference: item.reference } : {}),
      ...(item.date_of_birth !== undefined ? { date_of_birth: item.date_of_birth } : {}),
      ...(item.countries !== undefined ? { countries: item.countries } : {}),
      ...(item.identifiers !== undefined ? { identifiers: item.identifiers } : {}),
      ...(item.options || submission.options ? { options: { ...submission.options, ...item.options } } : {}),
    };
    const resolved = resolveItem(index, submission.lines?.[index], request, plan, configured, today);
    if ('errors' in resolved) errors.push(...resolved.errors);
    checked.push({ index, reference: item.reference ?? null, request, resolved: resolved.resolved });
  }
  if (errors.length > 0) throw itemsRefused(errors, items.length);
  return checked;
}

/** How many items a list of parties may hold, and what it is called in a refusal. */
export interface ItemsLimit {
  what: string;
  max: number;
}

export const BATCH_ITEMS_LIMIT: ItemsLimit = { what: 'batch', max: BATCH_ITEMS_MAX };

/**
 * Refuses a list of parties whose count is out of bounds, before any of them is looked at: checking
 * items beyond the limit would only cost time.
 */
export function assertItemCount(count: number, limit: ItemsLimit): void {
  if (count === 0 || count > limit.max) {
    throw invalid(`A ${limit.what} holds 1 to ${limit.max} items.`, [
      { pointer: '/items', detail: `must hold 1 to ${limit.max} items (got ${count})` },
    ]);
  }
}

/**
 * The refusal of a list of parties some of whose items are bad: every problem, by item (stably:
 * an item's problems keep their order). Each pointer is read once: sorting 100,000 problems by
 * reading two pointers per comparison held the event loop 0.3 to 0.8 s.
 */
export function itemsRefused(errors: FieldError[], total: number): ServiceError {
  const indexes = errors.map(itemIndexOf);
  const inOrder = indexes.every((index, i) => i === 0 || indexes[i - 1]! <= index);
  const sorted = inOrder
    ? errors
    : indexes
        .map((index, i) => ({ index, i }))
        .sort((a, b) => a.index - b.index || a.i - b.i)
        .map(({ i }) => errors[i]!);
  const bad = new Set(indexes).size;
  return invalid(`${bad} of the ${total} items are not valid; nothing was queued.`, sorted);
}

const ITEMS_PREFIX = '/items/';

/** The item a problem is about: the number after `/items/` (NaN for a problem of the list). */
function itemIndexOf(error: FieldError): number {
  const end = error.pointer.indexOf('/', ITEMS_PREFIX.length);
  return Number(error.pointer.slice(ITEMS_PREFIX.length, end < 0 ? undefined : end));
}

/** An item checked as `POST /v1/screen` checks a request; a CSV's item names its `line` in each error. */
function resolveItem(
  index: number,
  line: number | undefined,
  request: ScreeningRequest,
  plan: Plan,
  configured: readonly Source[],
  today: string,
): { resolved: ResolvedScreening } | { errors: FieldError[]; resolved: undefined } {
  try {
    return { resolved: resolveScreeningRequest(request, plan, configured, today) };
  } catch (error) {
    if (!(error instanceof ServiceError) || error.code !== 'validation-failed') throw error;
    const errors = error.fieldErrors.map((e) => ({
      pointer: `/items/${index}${e.pointer}`,
      detail: line === undefined ? e.detail : `line ${line}: ${e.detail}`,
    }));
    return { errors, resolved: undefined };
  }
}
