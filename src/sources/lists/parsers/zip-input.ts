import { Unzip, type UnzipFile, UnzipInflate } from 'fflate';
import { inputBytes, peek, prepend } from './byte-input.js';
import type { ListParseLimits } from './limits.js';
import { type FileContext, parseError } from './list-parse-error.js';
import type { ListInput } from './types.js';

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];

interface EntryState {
  queue: Uint8Array[];
  error?: Error;
  found?: string;
  finished: boolean;
  total: number;
}

/**
 * Streams the decompressed bytes of the first zip entry whose name `wanted` accepts. The
 * decompressed size is capped both as the entry declares it and as it actually inflates, since a
 * zip bomb can lie in its header.
 */
export async function* zipEntryBytes(
  input: ListInput,
  ctx: FileContext,
  limits: ListParseLimits,
  wanted: (entryName: string) => boolean,
  signal?: AbortSignal,
): AsyncGenerator<Uint8Array> {
  const { head, rest } = await peek(inputBytes(input, ctx, limits.maxInputBytes, signal), 4);
  if (head.byteLength === 0) throw parseError(ctx, { byte: 0 }, 'file is empty');
  if (!ZIP_MAGIC.every((byte, i) => head[i] === byte)) {
    throw parseError(ctx, { byte: 0 }, 'file is not a zip archive');
  }
  const state: EntryState = { queue: [], finished: false, total: 0 };
  const unzip = new Unzip((file) => onEntry(file, state, ctx, limits.maxDecompressedBytes, wanted));
  unzip.register(UnzipInflate);
  for await (const chunk of prepend(head, rest)) {
    pushChecked(unzip, chunk, false, ctx, state);
    yield* drain(state);
  }
  pushChecked(unzip, new Uint8Array(0), true, ctx, state);
  yield* drain(state);
  if (!state.found) throw parseError(ctx, {}, 'zip archive holds no list file');
  if (!state.finished) throw parseError(ctx, { byte: state.total }, `zip entry ${state.found} is truncated`);
}

function onEntry(
  file: UnzipFile,
  state: EntryState,
  ctx: FileContext,
  maxBytes: number,
  wanted: (entryName: string) => boolean,
): void {
  if (state.found || !wanted(file.name)) return;
  state.found = file.name;
  if (file.originalSize !== undefined && file.originalSize > maxBytes) {
    state.error = parseError(
      ctx,
      {},
      `zip entry ${file.name} declares ${file.originalSize} bytes, over the ${maxBytes}-byte limit`,
    );
    return;
  }
  file.ondata = (error, data, final) => {
    if (state.error) return;
    if (error) {
      state.error = parseError(
        ctx,
        { byte: state.total },
        `corrupt zip entry ${file.name} (${error.message})`,
        error,
      );
      return;
    }
    state.total += data.byteLength;
    if (state.total > maxBytes) {
      state.error = parseError(
        ctx,
        { byte: maxBytes },
        `zip entry ${file.name} expands beyond the ${maxBytes}-byte limit`,
      );
      file.terminate();
      return;
    }
    state.queue.push(data);
    if (final) state.finished = true;
  };
  try {
    file.start();
  } catch (error) {
    state.error = parseError(ctx, {}, `cannot decompress zip entry ${file.name}: ${String(error)}`, error);
  }
}

function pushChecked(unzip: Unzip, chunk: Uint8Array, final: boolean, ctx: FileContext, state: EntryState) {
  if (state.error) throw state.error;
  try {
    unzip.push(chunk, final);
  } catch (error) {
    if (state.error) throw state.error;
    throw parseError(ctx, {}, `corrupt zip archive (${String(error)})`, error);
  }
}

function* drain(state: EntryState): Generator<Uint8Array> {
  if (state.error) throw state.error;
  while (state.queue.length > 0) yield state.queue.shift()!;
}
