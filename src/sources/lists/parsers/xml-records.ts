import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { ListParseLimits } from './limits.js';
import { type FileContext, ListParseError, parseError } from './list-parse-error.js';
import type { XmlElement } from './xml-element.js';

export interface XmlRecordReader {
  /** Accepted names of the document element; anything else (an HTML page, another list) fails. */
  roots: readonly string[];
  onRoot?(attrs: Record<string, string>): void;
  /** Whether an element opened at `depth` (document element = 0) is a whole record. */
  isRecord(name: string, depth: number): boolean;
  onRecord(el: XmlElement, recordNumber: number): void;
}

interface WalkState {
  depth: number;
  stack: XmlElement[];
  records: number;
  recordElements: number;
  recordChars: number;
  sawRoot: boolean;
}

/**
 * Streams an XML document and hands each record element to `reader.onRecord` as a small tree;
 * nothing outside the current record is kept. Errors carry the line and column.
 */
export async function readXmlRecords(
  text: AsyncIterable<string>,
  ctx: FileContext,
  limits: ListParseLimits,
  reader: XmlRecordReader,
): Promise<number> {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const state: WalkState = {
    depth: 0,
    stack: [],
    records: 0,
    recordElements: 0,
    recordChars: 0,
    sawRoot: false,
  };
  const fail = (reason: string, cause?: unknown): ListParseError =>
    cause instanceof ListParseError
      ? cause
      : parseError(
          ctx,
          { line: parser.line, column: parser.column + 1, record: state.records || undefined },
          reason,
          cause,
        );
  parser.on('error', (error) => {
    throw fail(`malformed XML: ${error.message.replace(/^[^:]*:\d+:\d+: /, '')}`, error);
  });
  parser.on('opentag', (tag) => onOpen(tag, state, reader, limits, fail));
  parser.on('closetag', () => onClose(state, reader, fail));
  parser.on('text', (chunk) => onText(chunk, state, limits, fail));
  parser.on('cdata', (chunk) => onText(chunk, state, limits, fail));
  for await (const chunk of text) parser.write(chunk);
  parser.close();
  if (!state.sawRoot) throw fail('no XML document element');
  return state.records;
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

type Fail = (reason: string, cause?: unknown) => ListParseError;

function onOpen(
  tag: SaxesTagPlain,
  state: WalkState,
  reader: XmlRecordReader,
  limits: ListParseLimits,
  fail: Fail,
) {
  const name = localName(tag.name);
  const depth = state.depth++;
  if (depth === 0) {
    state.sawRoot = true;
    if (!reader.roots.includes(name)) {
      throw fail(`unexpected document element <${name}>, expected <${reader.roots.join('> or <')}>`);
    }
    reader.onRoot?.(tag.attributes);
    return;
  }
  if (state.stack.length === 0 && !reader.isRecord(name, depth)) return;
  const el: XmlElement = { name, attrs: tag.attributes, children: [], text: '' };
  if (state.stack.length === 0) {
    state.recordElements = 0;
    state.recordChars = 0;
    state.records++;
  } else {
    state.stack[state.stack.length - 1]!.children.push(el);
  }
  if (++state.recordElements > limits.maxRecordElements) {
    throw fail(`record has more than ${limits.maxRecordElements} elements`);
  }
  state.stack.push(el);
}

function onClose(state: WalkState, reader: XmlRecordReader, fail: Fail) {
  state.depth--;
  if (state.stack.length === 0) return;
  const el = state.stack.pop()!;
  if (state.stack.length > 0) return;
  try {
    reader.onRecord(el, state.records);
  } catch (error) {
    throw fail(`cannot read record: ${error instanceof Error ? error.message : String(error)}`, error);
  }
}

function onText(chunk: string, state: WalkState, limits: ListParseLimits, fail: Fail) {
  const current = state.stack[state.stack.length - 1];
  if (!current) return;
  state.recordChars += chunk.length;
  if (state.recordChars > limits.maxRecordChars) {
    throw fail(`record text is longer than ${limits.maxRecordChars} characters`);
  }
  current.text += chunk;
}
