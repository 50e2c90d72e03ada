import { createHash } from 'node:crypto';
import type { Flag } from '../sources/flag.js';
import type { ScreenedFlag } from './screening-result.js';

/**
 * Keys that describe how a record matched this query, or what this instance makes of it, rather
 * than the record itself: they must not change a record's hash, or every screening of another
 * spelling (or an operator enabling a list) would undo the decisions taken on the record.
 */
const NOT_RECORD_CONTENT: ReadonlySet<string> = new Set([
  'matched_name',
  'matched_name_type',
  'match_explanation',
  'match_score',
  'company_match_score',
  'provider_score',
  'party',
  'confirms',
  'record_hash',
  'previous_decision',
]);

/**
 * Keys of a provider's own record that change with every export without the record changing
 * (OpenSanctions' `last_seen` is the date of the latest crawl that saw the entity).
 */
const EXPORT_BOOKKEEPING: ReadonlySet<string> = new Set(['last_seen']);

/**
 * Every flag with its `id` and `details.record_hash`. The id names the listed record, whatever
 * screening found it (`ofac_sdn:36`): the source's own id of the record, or, for a source whose
 * records have none (news articles), its address. The hash is of the record's content: the list's
 * own record (`source_record`) where the flag carries it, the flag's details otherwise, less
 * whatever depends on the query (see NOT_RECORD_CONTENT).
 */
export function identifyFlags(flags: readonly Flag[]): ScreenedFlag[] {
  return flags.map((flag) => {
    const recordHash = recordHashOf(flag);
    return {
      id: flagIdOf(flag, recordHash),
      ...flag,
      details: { ...flag.details, record_hash: recordHash },
    };
  });
}

function flagIdOf(flag: Flag, recordHash: string): string {
  const { source_id: sourceId, url } = flag.details;
  if (typeof sourceId === 'string' && sourceId !== '') return `${flag.source}:${sourceId}`;
  if (typeof url === 'string' && url !== '') return `${flag.source}:${shortHash(url)}`;
  return `${flag.source}:${recordHash.slice(0, 16)}`;
}

function recordHashOf(flag: Flag): string {
  const record = flag.details.source_record;
  if (record !== undefined && record !== null) return listRecordHash(flag.source, record);
  return contentHash(flag.source, withoutKeys(flag.details, NOT_RECORD_CONTENT, false));
}

/**
 * The `record_hash` a flag of this listed record gets (its list's own record, `raw`): what a list
 * version's changes are worked out from, without screening anything.
 */
export function listRecordHash(source: string, sourceRecord: unknown): string {
  return contentHash(source, withoutKeys(sourceRecord, EXPORT_BOOKKEEPING, true));
}

function contentHash(source: string, content: unknown): string {
  return createHash('sha256')
    .update(canonicalJson([source, content]))
    .digest('hex');
}

/** The value with the given keys left out of its objects (nested ones too, unless `topOnly`). */
function withoutKeys(value: unknown, keys: ReadonlySet<string>, topOnly: boolean): unknown {
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

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
