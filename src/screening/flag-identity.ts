import { createHash } from 'node:crypto';
import type { Flag } from '../sources/flag.js';
import { contentHash, listRecordHash, withoutKeys } from '../sources/record-hash.js';
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
 * Every flag with its `id` and `details.record_hash`. The id names the listed record, whatever
 * screening found it (`ofac_sdn:36`): the source's own id of the record, or, for a source whose
 * records have none (news articles), its address. The hash is of the record's content: the list's
 * own record (`source_record`) where the flag carries it, the flag's details otherwise, less
 * whatever depends on the query (see NOT_RECORD_CONTENT).
 */
export function identifyFlags(flags: readonly Flag[]): ScreenedFlag[] {
  return flags.map(({ recordHash: given, ...flag }) => {
    const recordHash = given ?? recordHashOf(flag);
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

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
