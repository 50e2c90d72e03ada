import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import {
  conditionalHeaders,
  DownloadError,
  type FileValidators,
  fetchSameHost,
  noFileIn,
  optional,
} from './download.js';

export interface FileDownloadOptions {
  /**
   * A transfer that receives nothing for this long is given up. A file of gigabytes has no
   * deadline as a whole: it takes what the line gives it, as long as bytes keep coming.
   */
  idleTimeoutMs: number;
  validators?: FileValidators;
  signal?: AbortSignal;
}

export interface DownloadedToFile extends FileValidators {
  status: 'downloaded';
  /** Where the file is: `target`, or the local file itself for a `file:` address (never copied). */
  path: string;
  bytes: number;
  /** SHA-256 of what was downloaded; not worked out for a local file (read whole later anyway). */
  sha256?: string;
  url: string;
}

export type FileDownloadResult = DownloadedToFile | { status: 'not_modified' } | { status: 'not_found' };

/**
 * Downloads a file too large for memory (OpenSanctions' export, gigabytes) to `target`, streamed
 * to disk through `<target>.partial`, renamed only once every byte the server announced arrived:
 * a download cut short, stalled or refused leaves no file at `target`, so the version built from
 * the last whole one stays in service. Same rules as `downloadFile` otherwise: redirects within
 * the host, no HTML pages, conditional GET.
 */
export async function downloadToFile(
  url: string,
  target: string,
  options: FileDownloadOptions,
): Promise<FileDownloadResult> {
  if (url.startsWith('file:')) return localFile(url);
  const idle = new AbortController();
  let timer = setTimeout(() => idle.abort(), options.idleTimeoutMs);
  const awake = () => {
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), options.idleTimeoutMs);
  };
  const signal = options.signal ? AbortSignal.any([idle.signal, options.signal]) : idle.signal;
  const partial = `${target}.partial`;
  try {
    const response = await fetchSameHost(url, conditionalHeaders(options.validators), signal);
    const nothing = noFileIn(url, response);
    if (nothing) return nothing;
    // The length announced is of the bytes sent: fetch decodes a compressed transfer, so its
    // length says nothing of what arrives (the decoder then refuses a cut stream itself).
    const encoded = (response.headers.get('content-encoding') ?? 'identity') !== 'identity';
    const declared = encoded ? Number.NaN : Number(response.headers.get('content-length') ?? Number.NaN);
    const hash = createHash('sha256');
    const out = createWriteStream(partial);
    let bytes = 0;
    try {
      for await (const chunk of response.body ?? []) {
        awake();
        hash.update(chunk);
        bytes += chunk.byteLength;
        if (!out.write(chunk)) await once(out, 'drain');
      }
    } finally {
      out.end();
      await once(out, 'close');
    }
    if (Number.isFinite(declared) && bytes !== declared) {
      throw new DownloadError(url, `cut short: ${bytes} of the ${declared} bytes announced arrived`);
    }
    await rename(partial, target);
    return {
      status: 'downloaded',
      path: target,
      bytes,
      sha256: hash.digest('hex'),
      url: response.url || url,
      ...optional('etag', response.headers.get('etag')),
      ...optional('lastModified', response.headers.get('last-modified')),
    };
  } catch (error) {
    await rm(partial, { force: true });
    if (error instanceof DownloadError) throw error;
    if (idle.signal.aborted) throw new DownloadError(url, `nothing received for ${options.idleTimeoutMs} ms`);
    if (options.signal?.aborted) throw new DownloadError(url, 'cancelled');
    const cause = (error as Error)?.cause as Error | undefined;
    throw new DownloadError(url, cause?.message ?? (error as Error)?.message ?? String(error), {
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
}

/** A local file is read where it is; its modification time stands for `Last-Modified`. */
async function localFile(url: string): Promise<FileDownloadResult> {
  const path = fileURLToPath(url);
  try {
    const { size, mtime } = await stat(path);
    return { status: 'downloaded', path, bytes: size, url, lastModified: mtime.toUTCString() };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'not_found' };
    throw new DownloadError(url, (error as Error).message, { cause: error });
  }
}
