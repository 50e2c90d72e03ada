// Caps that keep a hostile or broken list file from exhausting memory or CPU. The largest real
// files are the full EU XML (about 25 MB) and the OFSI CSV (about 15 MB); the caps leave ample
// headroom for growth while stopping a zip bomb or a runaway record early.

export interface ListParseLimits {
  /** Bytes read from the input as given (compressed or not). */
  maxInputBytes: number;
  /** Bytes after decompression (gzip or zip entry). */
  maxDecompressedBytes: number;
  /** Characters in one CSV record or in the text of one XML record. */
  maxRecordChars: number;
  /** Elements inside one XML record. */
  maxRecordElements: number;
  /** Entities in one list. */
  maxEntities: number;
}

export const DEFAULT_LIST_PARSE_LIMITS: Readonly<ListParseLimits> = Object.freeze({
  maxInputBytes: 256 * 1024 * 1024,
  maxDecompressedBytes: 512 * 1024 * 1024,
  maxRecordChars: 4 * 1024 * 1024,
  maxRecordElements: 100_000,
  maxEntities: 2_000_000,
});

export function resolveLimits(overrides?: Partial<ListParseLimits>): ListParseLimits {
  return { ...DEFAULT_LIST_PARSE_LIMITS, ...overrides };
}
