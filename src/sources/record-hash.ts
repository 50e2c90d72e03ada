import { createHash } from 'node:crypto';

/**
 * Keys of a provider's own record that change with every export without the record changing
 * (OpenSanctions' `last_seen` is the date of the latest crawl that saw the entity).
 */
const EXPORT_BOOKKEEPING: ReadonlySet<string> = new Set(['last_seen']);

/**
 * The `record_hash` a flag of this listed record gets (its list's own record, `raw`): what a list
 * version's changes are worked out from, without screening anything.
 */
export function listRecordHash(source: string, sourceRecord: unknown): string {
  return contentHash(source, withoutKeys(sourceRecord, EXPORT_BOOKKEEPING, true));
}

/** A hash of `content` from `source`, the same whatever order its objects' keys were built in. */
export function contentHash(source: string, content: unknown): string {
  return createHash('sha256')
    .update(canonicalJson([source, content]))
    .digest('hex');
}

/** The value with the given keys left out of its objects (nested ones too, unless `topOnly`). */
export function withoutKeys(value: unknown, keys: ReadonlySet<string>, topOnly: boolean): unknown {
  if (Array.isArray(value)) return topOnly ? value : value.map((v) => withoutKeys(v, keys, false));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !keys.has(k))
      .map(([k, v]) => [k, topOnly ? v : withoutKeys(v, keys, false)]),
  );
}

/** JSON with object keys sorted: the same content hashes the same whatever order it was built in. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
