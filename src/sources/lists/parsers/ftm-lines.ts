import type { ListParseLimits } from './limits.js';
import { type FileContext, parseError } from './list-parse-error.js';

/** One non-empty line of a JSON-lines file: its parsed value, or `undefined` when it is not JSON. */
export interface JsonLine {
  /** 1-based line number in the (decompressed) file. */
  line: number;
  value: unknown;
  malformed: boolean;
}

/**
 * Streams a JSON-lines file (one JSON value per line, as OpenSanctions exports entities) without
 * holding more than one line beyond the current chunk. A line that is not JSON is reported as
 * malformed rather than thrown, so the caller decides whether one bad line spoils the file; a
 * line longer than the record cap is an error, because no sane entity is that large.
 */
export async function* readJsonLines(
  text: AsyncIterable<string>,
  ctx: FileContext,
  limits: ListParseLimits,
): AsyncGenerator<JsonLine> {
  let pending = '';
  let line = 0;
  for await (const chunk of text) {
    pending += chunk;
    let start = 0;
    for (let end = pending.indexOf('\n', start); end !== -1; end = pending.indexOf('\n', start)) {
      line++;
      const parsed = parseLine(pending.slice(start, end), line, ctx, limits);
      if (parsed) yield parsed;
      start = end + 1;
    }
    pending = pending.slice(start);
    if (pending.length > limits.maxRecordChars) tooLong(line + 1, ctx, limits);
  }
  const last = parseLine(pending, line + 1, ctx, limits);
  if (last) yield last;
}

function parseLine(text: string, line: number, ctx: FileContext, limits: ListParseLimits) {
  if (text.length > limits.maxRecordChars) tooLong(line, ctx, limits);
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  try {
    return { line, value: JSON.parse(trimmed) as unknown, malformed: false };
  } catch {
    return { line, value: undefined, malformed: true };
  }
}

function tooLong(line: number, ctx: FileContext, limits: ListParseLimits): never {
  throw parseError(ctx, { line }, `line is longer than ${limits.maxRecordChars} characters`);
}
