import { TextDecoder } from 'node:util';
import { gunzipIfCompressed, inputBytes, peek, prepend } from './byte-input.js';
import type { ListParseLimits } from './limits.js';
import { type FileContext, parseError } from './list-parse-error.js';
import type { ListInput } from './types.js';

/** How much of the start of a file is inspected for signs that it is not the list at all. */
const SNIFF_CHARS = 2048;
const HTML_START = /<!doctype\s+html|<html[\s>]/i;

/**
 * Opens a list file as UTF-8 text: reads within the size caps, decompresses gzip, rejects files
 * that are empty, in another encoding, or an HTML page (a login or error page served in place of
 * the list), and drops a byte-order mark.
 */
export function openText(
  input: ListInput,
  ctx: FileContext,
  limits: ListParseLimits,
  signal?: AbortSignal,
): AsyncGenerator<string> {
  const bytes = inputBytes(input, ctx, limits.maxInputBytes, signal);
  return decodeUtf8(gunzipIfCompressed(bytes, ctx, limits.maxDecompressedBytes), ctx);
}

/** Decodes bytes that must be UTF-8; any invalid sequence is an error naming its byte offset. */
export async function* decodeUtf8(
  chunks: AsyncIterable<Uint8Array>,
  ctx: FileContext,
): AsyncGenerator<string> {
  const { head, rest } = await peek(chunks, 4);
  if (head.byteLength === 0) throw parseError(ctx, { byte: 0 }, 'file is empty');
  rejectOtherEncodings(head, ctx);
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  let offset = 0;
  let sniffed = '';
  for await (const chunk of prepend(head, rest)) {
    const text = decodeChunk(decoder, chunk, offset, ctx, false);
    offset += chunk.byteLength;
    if (sniffed.length < SNIFF_CHARS) {
      sniffed += text;
      rejectHtml(sniffed, ctx);
    }
    if (text.length > 0) yield text;
  }
  const tail = decodeChunk(decoder, new Uint8Array(0), offset, ctx, true);
  if (tail.length > 0) yield tail;
}

function decodeChunk(
  decoder: TextDecoder,
  chunk: Uint8Array,
  offset: number,
  ctx: FileContext,
  end: boolean,
) {
  try {
    return decoder.decode(chunk, { stream: !end });
  } catch (error) {
    const at = end ? offset : offset + Math.max(0, firstInvalidUtf8(chunk));
    throw parseError(ctx, { byte: at }, 'file is not valid UTF-8 text (wrong encoding?)', error);
  }
}

function rejectOtherEncodings(head: Uint8Array, ctx: FileContext): void {
  const utf16Bom = (head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff);
  // UTF-16 text of an ASCII-range start has a zero in every other byte; UTF-8 text never does.
  const zeroByte = head.subarray(0, 4).includes(0);
  if (utf16Bom || zeroByte) {
    throw parseError(ctx, { byte: 0 }, 'file is UTF-16 or binary, expected UTF-8 text (wrong encoding?)');
  }
}

function rejectHtml(start: string, ctx: FileContext): void {
  const match = HTML_START.exec(start.slice(0, SNIFF_CHARS));
  if (match) {
    const line = start.slice(0, match.index).split('\n').length;
    throw parseError(
      ctx,
      { line },
      'received an HTML page instead of the list file (a login or error page?); treating as a failed download',
    );
  }
}

/** Index of the first byte that does not start a valid UTF-8 sequence, or -1. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const length = b < 0x80 ? 1 : b >> 5 === 0b110 ? 2 : b >> 4 === 0b1110 ? 3 : b >> 3 === 0b11110 ? 4 : 0;
    if (length === 0) return i;
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      if (next === undefined) return -1;
      if (next >> 6 !== 0b10) return i;
    }
    i += length;
  }
  return -1;
}
