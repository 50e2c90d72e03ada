import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse } from 'csv-parse';
import type { ListParseLimits } from './limits.js';
import { type FileContext, ListParseError, parseError } from './list-parse-error.js';

export interface CsvRow {
  fields: string[];
  /** Line on which the row ends (1-based). */
  line: number;
  /** 1-based row number in the file, header rows included. */
  record: number;
}

export interface CsvRowOptions {
  /** Tolerate stray quotes inside unquoted fields (OFAC's legacy files have had them). */
  relaxQuotes?: boolean;
  /** Line number of the first line of `text` in the file, when lines were taken off before. */
  firstLine?: number;
}

/** DOS end-of-file marker (0x1A) that OFAC's legacy files end with, alone on the last line. */
const DOS_EOF = '\u001a';

/** Streams CSV rows as string arrays; malformed CSV fails with the line where it was found. */
export async function* readCsvRows(
  text: AsyncIterable<string>,
  ctx: FileContext,
  limits: ListParseLimits,
  options: CsvRowOptions = {},
): AsyncGenerator<CsvRow> {
  const parser = parse({
    info: true,
    relax_column_count: true,
    relax_quotes: options.relaxQuotes ?? false,
    skip_empty_lines: true,
    max_record_size: limits.maxRecordChars,
  });
  pipeline(Readable.from(text), parser).catch(() => undefined);
  let record = 0;
  const lineOffset = (options.firstLine ?? 1) - 1;
  try {
    for await (const item of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      const fields = item.record;
      if (fields.length === 1 && fields[0]!.trim() === DOS_EOF) continue;
      record++;
      yield { fields, line: item.info.lines + lineOffset, record: record + lineOffset };
    }
  } catch (error) {
    if (error instanceof ListParseError) throw error;
    const line =
      error instanceof CsvError && typeof error.lines === 'number' ? error.lines + lineOffset : undefined;
    const reason = error instanceof Error ? error.message.replace(/^Invalid \w+:\s*/, '') : String(error);
    throw parseError(ctx, { line, record: record + lineOffset + 1 }, `malformed CSV: ${reason}`, error);
  } finally {
    parser.destroy();
  }
}

/** Fails unless the row has exactly `count` fields: a shifted column would corrupt every value. */
export function requireColumns(row: CsvRow, count: number, ctx: FileContext): void {
  if (row.fields.length !== count) {
    throw parseError(
      ctx,
      { line: row.line, record: row.record },
      `expected ${count} columns, found ${row.fields.length}`,
    );
  }
}

/**
 * Takes the first line off a text stream. OFSI's file starts with a 'Last Updated' line of another
 * width than the table; csv-parse measures row width from its first row and would otherwise build
 * (and discard) an error object for every later row.
 */
export async function takeFirstLine(
  text: AsyncIterable<string>,
): Promise<{ first: string; rest: AsyncGenerator<string> }> {
  const iterator = text[Symbol.asyncIterator]();
  let buffered = '';
  while (!buffered.includes('\n')) {
    const next = await iterator.next();
    if (next.done) break;
    buffered += next.value;
  }
  const end = buffered.indexOf('\n');
  const first = end === -1 ? buffered : buffered.slice(0, end);
  const remainder = end === -1 ? '' : buffered.slice(end + 1);
  async function* rest(): AsyncGenerator<string> {
    if (remainder) yield remainder;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { first: first.replace(/\r$/, ''), rest: rest() };
}
