import type { EntityKind, ListEntity } from '../../list-entity.js';
import type { ListParseLimits } from './limits.js';

/**
 * One list file as the caller has it: a Node `Readable` (from a file or an HTTP response), a web
 * `ReadableStream` (fetch's body), any async iterable of byte chunks, or the bytes themselves.
 * gzip-compressed content is recognised by its magic bytes and decompressed on the fly.
 */
export type ListInput = Uint8Array | AsyncIterable<Uint8Array | string>;

/** The files of one list, keyed by their official file name as written in `ListFileSpec.name`. */
export type ListFiles = ReadonlyMap<string, ListInput>;

export interface ListParseOptions {
  limits?: Partial<ListParseLimits>;
  /** Stops a parse in progress (shutdown, refresh superseded). */
  signal?: AbortSignal;
  /**
   * Lists (normalised `list` values) whose rows a consolidated source skips because another
   * enabled source already carries them. For `us_csl` the default is `['SDN']`, so one OFAC
   * listing is not counted twice while `ofac_sdn` is enabled; pass `[]` when it is not.
   */
  skipLists?: readonly string[];
}

export interface ListParseCounts {
  entities: number;
  names: number;
  byKind: Record<EntityKind, number>;
  /** Source records read (rows or record elements) before grouping and skipping. */
  records: number;
  /** Records left out on purpose (e.g. us_csl rows of a list in `skipLists`). */
  skipped: number;
}

export interface ListParseResult {
  source: string;
  entities: ListEntity[];
  /** The list's own publication date, 'YYYY-MM-DD', when the file states one. */
  listDate?: string;
  counts: ListParseCounts;
  /** Oddities that did not stop the parse (orphan rows, unknown values), for the refresh log. */
  warnings: string[];
}

export interface ListFileSpec {
  /** Official download name; a mirror matches it case-insensitively, optionally plus '.gz'. */
  name: string;
  required: boolean;
}

export interface ListParserDescriptor {
  /** Source id (`flag.source`). */
  id: string;
  /** Distinguishes two formats of one source (OFAC's legacy CSV and its Enhanced XML). */
  format: string;
  /** The `list` value of its entities, when it is the same for all of them. */
  list?: string;
  files: readonly ListFileSpec[];
  parse(files: ListFiles, options?: ListParseOptions): Promise<ListParseResult>;
}
