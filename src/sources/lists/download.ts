import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** Redirects followed within one host (OFAC and the EU redirect to their own storage paths). */
export const LIST_DOWNLOAD_MAX_REDIRECTS = 5;

/** The validators of the version in service, sent so an unchanged file costs a 304 and no body. */
export interface FileValidators {
  etag?: string;
  lastModified?: string;
}

export interface DownloadOptions {
  timeoutMs: number;
  maxBytes: number;
  validators?: FileValidators;
  signal?: AbortSignal;
}

export interface DownloadedFile extends FileValidators {
  status: 'downloaded';
  bytes: Buffer;
  sha256: string;
  /** Where the bytes finally came from (after same-host redirects). */
  url: string;
}

export type DownloadResult = DownloadedFile | { status: 'not_modified' } | { status: 'not_found' };

/** A download that failed; the message is meant for the operator (it names the URL). */
export class DownloadError extends Error {
  override readonly name = 'DownloadError';

  constructor(
    readonly url: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${redact(url)}: ${reason}`, options);
  }
}

/** Query strings may hold access tokens (the EU's does): never in logs or API answers. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.search ? `${parsed.origin}${parsed.pathname}?…` : `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Downloads one list file as untrusted input: a deadline covering the body too, a size cap,
 * conditional GET, and redirects followed only within the same host, because a list answered from
 * another host (a captive portal, a hijacked mirror) must never replace the version in service.
 */
export async function downloadFile(url: string, options: DownloadOptions): Promise<DownloadResult> {
  if (url.startsWith('file:')) return readLocalFile(url, options.maxBytes);
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  try {
    const response = await fetchSameHost(url, conditionalHeaders(options.validators), signal);
    const nothing = noFileIn(url, response);
    if (nothing) return nothing;
    const bytes = await readCapped(url, response, options.maxBytes);
    return {
      status: 'downloaded',
      bytes,
      sha256: sha256(bytes),
      url: response.url || url,
      ...optional('etag', response.headers.get('etag')),
      ...optional('lastModified', response.headers.get('last-modified')),
    };
  } catch (error) {
    if (error instanceof DownloadError) throw error;
    if (deadline.aborted) throw new DownloadError(url, `no complete answer within ${options.timeoutMs} ms`);
    if (options.signal?.aborted) throw new DownloadError(url, 'cancelled');
    const cause = (error as Error)?.cause as Error | undefined;
    throw new DownloadError(url, cause?.message ?? (error as Error)?.message ?? String(error), {
      cause: error,
    });
  }
}

export function optional<K extends string>(key: K, value: string | null): Partial<Record<K, string>> {
  return value ? ({ [key]: value } as Record<K, string>) : {};
}

export function conditionalHeaders(validators: FileValidators | undefined): Record<string, string> {
  const headers: Record<string, string> = { accept: '*/*', 'user-agent': 'compliance-screening-service' };
  if (validators?.etag) headers['if-none-match'] = validators.etag;
  if (validators?.lastModified) headers['if-modified-since'] = validators.lastModified;
  return headers;
}

export async function fetchSameHost(url: string, headers: Record<string, string>, signal: AbortSignal) {
  const origin = new URL(url);
  let current = origin;
  for (let hop = 0; hop <= LIST_DOWNLOAD_MAX_REDIRECTS; hop++) {
    const response = await fetch(current, { headers, signal, redirect: 'manual' });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || response.status === 304 || !location) {
      return response;
    }
    await response.body?.cancel();
    const next = new URL(location, current);
    if (next.host !== origin.host) {
      throw new DownloadError(url, `redirected to another host (${next.host}); refused`);
    }
    if (origin.protocol === 'https:' && next.protocol !== 'https:') {
      throw new DownloadError(url, 'redirected from https to plain http; refused');
    }
    current = next;
  }
  throw new DownloadError(url, `more than ${LIST_DOWNLOAD_MAX_REDIRECTS} redirects`);
}

/**
 * What an answer without the file means (unchanged since the validators sent, or gone), or
 * undefined when it carries the file; throws for an error status and for an HTML page.
 */
export function noFileIn(
  url: string,
  response: Response,
): { status: 'not_modified' } | { status: 'not_found' } | undefined {
  if (response.status === 304) return { status: 'not_modified' };
  if (response.status === 404 || response.status === 410) return { status: 'not_found' };
  if (!response.ok) throw new DownloadError(url, `HTTP ${response.status} ${response.statusText}`.trim());
  refuseHtml(url, response);
  return undefined;
}

// Every list is XML, CSV or zip; an HTML answer is a login, error or consent page.
function refuseHtml(url: string, response: Response): void {
  const type = response.headers.get('content-type') ?? '';
  if (/^\s*(text\/html|application\/xhtml)/i.test(type)) {
    throw new DownloadError(url, `answered with an HTML page (${type}) instead of the list file`);
  }
}

async function readCapped(url: string, response: Response, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new DownloadError(url, `file of ${declared} bytes is over the ${maxBytes}-byte limit`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (!response.body) return Buffer.alloc(0);
  for await (const chunk of response.body) {
    total += chunk.byteLength;
    // Leaving the loop cancels the stream, so the rest of an oversized body is never read.
    if (total > maxBytes) throw new DownloadError(url, `file is over the ${maxBytes}-byte limit`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * `file://` addresses: the same cap, no conditional read (the content hash tells a change); the
 * file's modification time stands for `Last-Modified`, the date of a list whose file states none.
 */
export async function readLocalFile(url: string, maxBytes: number): Promise<DownloadResult> {
  const file = fileURLToPath(url);
  let size: number;
  let modified: Date;
  try {
    ({ size, mtime: modified } = await stat(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'not_found' };
    throw new DownloadError(url, (error as Error).message, { cause: error });
  }
  if (size > maxBytes)
    throw new DownloadError(url, `file of ${size} bytes is over the ${maxBytes}-byte limit`);
  const bytes = await readFile(file);
  return { status: 'downloaded', bytes, sha256: sha256(bytes), url, lastModified: modified.toUTCString() };
}
