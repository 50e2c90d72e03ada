import { createHash } from 'node:crypto';
import { DownloadError, type DownloadResult, downloadFile, type FileValidators, redact } from './download.js';
import type { ListLocation } from './list-location.js';
import type { ListParserDescriptor } from './parsers/types.js';

/** What is recorded about each file of an accepted version (its checksum and validators). */
export interface ListFileRecord extends FileValidators {
  name: string;
  /** Without its query string, which may hold a token. */
  url: string;
  sha256: string;
  bytes: number;
}

export interface FetchedList {
  status: 'fetched';
  parser: ListParserDescriptor;
  contents: Map<string, Buffer>;
  files: ListFileRecord[];
  /** The content hash of the version: sha256 over every file's name and sha256. */
  version: string;
}

export type ListFetchResult = FetchedList | { status: 'not_modified' };

export interface FetchOptions {
  timeoutMs: number;
  maxBytes: number;
  signal?: AbortSignal;
  /** The files of the version in service; their validators make the requests conditional. */
  previous?: readonly ListFileRecord[];
}

/**
 * Fetches every file of a list. The files are parsed together, so a version is only "not
 * modified" when every file is; if any changed, the others are fetched again in full, because
 * the originals of the version in service are not kept.
 */
export async function fetchList(location: ListLocation, options: FetchOptions): Promise<ListFetchResult> {
  const first = await Promise.all(
    location.files.map((file) =>
      downloadFile(file.url, { ...options, validators: validatorsOf(file.name, options) }),
    ),
  );
  if (options.previous && first.every((result) => result.status === 'not_modified')) {
    return { status: 'not_modified' };
  }
  const results = await Promise.all(
    first.map((result, i) =>
      result.status === 'not_modified' ? downloadFile(location.files[i]!.url, options) : result,
    ),
  );
  return collect(location, results);
}

function validatorsOf(name: string, options: FetchOptions): FileValidators | undefined {
  const record = options.previous?.find((file) => file.name === name);
  if (!record) return undefined;
  return {
    ...(record.etag ? { etag: record.etag } : {}),
    ...(record.lastModified ? { lastModified: record.lastModified } : {}),
  };
}

function collect(location: ListLocation, results: DownloadResult[]): FetchedList {
  const contents = new Map<string, Buffer>();
  const files: ListFileRecord[] = [];
  results.forEach((result, i) => {
    const file = location.files[i]!;
    if (result.status === 'not_found') {
      if (file.required) throw new DownloadError(file.url, 'not found (HTTP 404)');
      return;
    }
    if (result.status === 'not_modified') throw new DownloadError(file.url, 'answered 304 to a plain GET');
    contents.set(file.name, result.bytes);
    files.push({
      name: file.name,
      url: redact(file.url),
      sha256: result.sha256,
      bytes: result.bytes.byteLength,
      ...(result.etag ? { etag: result.etag } : {}),
      ...(result.lastModified ? { lastModified: result.lastModified } : {}),
    });
  });
  return { status: 'fetched', parser: location.parser, contents, files, version: contentHash(files) };
}

export function contentHash(files: readonly ListFileRecord[]): string {
  const hash = createHash('sha256');
  for (const file of [...files].sort((a, b) => a.name.localeCompare(b.name))) {
    hash.update(`${file.name}\0${file.sha256}\n`);
  }
  return hash.digest('hex');
}
