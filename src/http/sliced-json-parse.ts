import { WorkSlices } from '../work-slices.js';

/** Below this many characters a body is parsed whole: a few milliseconds at most. */
export const SLICED_PARSE_FROM_CHARS = 256 * 1024;

/**
 * Parses a JSON body that may list a great many items (`{"items": [...], ...}`, up to 32 MB) a
 * slice of work at a time, so that the event loop is never held by it: the text is scanned for the
 * bounds of each top-level member and of each element of its `items` array, and each piece is
 * parsed on its own by `parseValue` (the app's JSON parser, which refuses prototype keys), with
 * the event loop given a turn between slices. Only `maxItems` + 1 items are parsed: more are only
 * counted (`itemCount` says how many there were), since the list is refused by its count anyway.
 *
 * The result is what `parseValue(text)` gives. Whatever the scan does not expect (not an object,
 * a syntax error, a `__proto__` member) is left to `parseValue(text)` whole, which gives the
 * body's exact error: a malformed body is refused, however long it takes, at the first fault.
 */
export async function parseInSlices(
  text: string,
  parseValue: (text: string) => unknown,
  maxItems: number,
): Promise<{ value: unknown; itemCount: number | undefined }> {
  if (text.length < SLICED_PARSE_FROM_CHARS) return { value: parseValue(text), itemCount: undefined };
  // A piece the parser refuses is refused again in the whole text, where its error names the body's position.
  const scanned = await scanObject(text, parseValue, maxItems).catch(() => undefined);
  return scanned ?? { value: parseValue(text), itemCount: undefined };
}

const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

async function scanObject(
  text: string,
  parseValue: (text: string) => unknown,
  maxItems: number,
): Promise<{ value: unknown; itemCount: number | undefined } | undefined> {
  const slices = new WorkSlices();
  const out: Record<string, unknown> = {};
  let itemCount: number | undefined;
  let at = skipSpace(text, 0);
  if (text.charCodeAt(at) !== 0x7b /* { */) return undefined;
  at = skipSpace(text, at + 1);
  if (text.charCodeAt(at) === 0x7d /* } */)
    return endOf(text, at + 1) ? { value: out, itemCount } : undefined;
  for (;;) {
    const keyEnd = stringEnd(text, at);
    if (keyEnd < 0) return undefined;
    const key = JSON.parse(text.slice(at, keyEnd)) as string;
    if (key === '__proto__' || key === 'constructor') return undefined;
    at = skipSpace(text, keyEnd);
    if (text.charCodeAt(at) !== 0x3a /* : */) return undefined;
    at = skipSpace(text, at + 1);
    if (key === 'items' && text.charCodeAt(at) === 0x5b /* [ */) {
      const items: unknown[] = [];
      at = skipSpace(text, at + 1);
      let count = 0;
      if (text.charCodeAt(at) !== 0x5d /* ] */) {
        for (;;) {
          if (slices.due()) await slices.pause();
          const end = valueEnd(text, at);
          if (end < 0) return undefined;
          count++;
          if (count <= maxItems + 1) items.push(parseValue(text.slice(at, end)));
          at = skipSpace(text, end);
          const next = text.charCodeAt(at);
          if (next === 0x5d /* ] */) break;
          if (next !== 0x2c /* , */) return undefined;
          at = skipSpace(text, at + 1);
        }
      }
      out[key] = items;
      itemCount = count;
      at = at + 1;
    } else {
      const end = valueEnd(text, at);
      if (end < 0) return undefined;
      out[key] = parseValue(text.slice(at, end));
      at = end;
    }
    at = skipSpace(text, at);
    const next = text.charCodeAt(at);
    if (next === 0x7d /* } */) return endOf(text, at + 1) ? { value: out, itemCount } : undefined;
    if (next !== 0x2c /* , */) return undefined;
    at = skipSpace(text, at + 1);
  }
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && isSpace(text.charCodeAt(at))) at++;
  return at;
}

/** Whether only whitespace follows `at`. */
function endOf(text: string, at: number): boolean {
  return skipSpace(text, at) === text.length;
}

/** The index after the string starting at `at` (a `"`), or -1. */
function stringEnd(text: string, at: number): number {
  if (text.charCodeAt(at) !== 0x22) return -1;
  let i = at + 1;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote < 0) return -1;
    let backslashes = 0;
    for (let k = quote - 1; k > at && text.charCodeAt(k) === 0x5c; k--) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

/**
 * The index after the JSON value starting at `at`, or -1: strings to their closing quote, arrays
 * and objects to their matching bracket (strings inside skipped whole), anything else to the next
 * delimiter. Bounds only: the value's parse checks its syntax.
 */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === 0x22) return stringEnd(text, at);
  if (first !== 0x7b && first !== 0x5b) {
    let i = at;
    while (i < text.length) {
      const code = text.charCodeAt(i);
      if (code === 0x2c || code === 0x5d || code === 0x7d || isSpace(code)) break;
      i++;
    }
    return i > at ? i : -1;
  }
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      const end = stringEnd(text, i);
      if (end < 0) return -1;
      i = end - 1;
    } else if (code === 0x7b || code === 0x5b) depth++;
    else if (code === 0x7d || code === 0x5d) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}
