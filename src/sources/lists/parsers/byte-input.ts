import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { type FileContext, parseError } from './list-parse-error.js';
import type { ListInput } from './types.js';

/** Slice size when the caller hands over one big buffer, so downstream work stays incremental. */
const BUFFER_SLICE_BYTES = 1024 * 1024;

/** Yields the input as byte chunks, stopping at `maxBytes` and when `signal` aborts. */
export async function* inputBytes(
  input: ListInput,
  ctx: FileContext,
  maxBytes: number,
  signal?: AbortSignal,
): AsyncGenerator<Uint8Array> {
  let total = 0;
  for await (const chunk of asChunks(input)) {
    signal?.throwIfAborted();
    total += chunk.byteLength;
    if (total > maxBytes) {
      throw parseError(ctx, { byte: maxBytes }, `file is larger than the ${maxBytes}-byte limit`);
    }
    yield chunk;
  }
}

async function* asChunks(input: ListInput): AsyncGenerator<Uint8Array> {
  if (input instanceof Uint8Array) {
    for (let at = 0; at < input.byteLength; at += BUFFER_SLICE_BYTES) {
      yield input.subarray(at, at + BUFFER_SLICE_BYTES);
    }
    return;
  }
  for await (const chunk of input) {
    yield typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
  }
}

/**
 * Decompresses gzip content (recognised by its magic bytes, whatever the file is called) and
 * passes anything else through. The decompressed size is capped: a few kilobytes of gzip can
 * expand to gigabytes.
 */
export async function* gunzipIfCompressed(
  chunks: AsyncIterable<Uint8Array>,
  ctx: FileContext,
  maxDecompressedBytes: number,
): AsyncGenerator<Uint8Array> {
  const { head, rest } = await peek(chunks, 2);
  const isGzip = head.byteLength >= 2 && head[0] === 0x1f && head[1] === 0x8b;
  if (!isGzip) {
    if (head.byteLength > 0) yield head;
    yield* rest;
    return;
  }
  yield* gunzip(prepend(head, rest), ctx, maxDecompressedBytes);
}

async function* gunzip(
  chunks: AsyncIterable<Uint8Array>,
  ctx: FileContext,
  maxBytes: number,
): AsyncGenerator<Uint8Array> {
  const gunzipper = createGunzip();
  // Errors of the source or of zlib destroy `gunzipper`, which rethrows them in the loop below.
  pipeline(Readable.from(chunks), gunzipper).catch(() => undefined);
  let total = 0;
  try {
    for await (const chunk of gunzipper as AsyncIterable<Buffer>) {
      total += chunk.byteLength;
      if (total > maxBytes) {
        throw parseError(ctx, { byte: maxBytes }, `gzip content expands beyond the ${maxBytes}-byte limit`);
      }
      yield chunk;
    }
  } catch (error) {
    if (error instanceof Error && 'code' in error && String(error.code).startsWith('Z_')) {
      throw parseError(ctx, { byte: total }, `corrupt or truncated gzip data (${error.message})`, error);
    }
    throw error;
  } finally {
    gunzipper.destroy();
  }
}

/** Reads at least `count` bytes (fewer only at the end) without losing the rest of the stream. */
export async function peek(
  chunks: AsyncIterable<Uint8Array>,
  count: number,
): Promise<{ head: Uint8Array; rest: AsyncIterable<Uint8Array> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const parts: Uint8Array[] = [];
  let size = 0;
  while (size < count) {
    const next = await iterator.next();
    if (next.done) break;
    parts.push(next.value);
    size += next.value.byteLength;
  }
  const head = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  const rest: AsyncIterable<Uint8Array> = { [Symbol.asyncIterator]: () => iterator };
  return { head, rest };
}

/** Puts a chunk taken off by `peek` back in front of the rest of the stream. */
export async function* prepend(
  first: Uint8Array,
  rest: AsyncIterable<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  yield first;
  yield* rest;
}
