import { createHash } from 'node:crypto';
import type { EffectiveOptions, QueryType } from './screening-result.js';

/**
 * The shape of a cached result. A new one (a field added to every answer) starts a new set of keys,
 * so that a result cached before it is never answered without the new fields.
 */
const RESULT_SHAPE = 'sources_failed';

/**
 * The result cache key: account, normalised entity, type, effective options and the data version
 * of every source involved, so a list update is never hidden by a cached answer.
 */
export function screeningCacheKey(
  accountId: string,
  entity: string,
  type: QueryType,
  options: EffectiveOptions,
  versions: Record<string, string>,
): string {
  const material = JSON.stringify([
    RESULT_SHAPE,
    accountId,
    entity,
    type,
    options.threshold,
    [...options.sources].sort(),
    options.include_adverse_media,
    Object.entries(versions).sort(([a], [b]) => a.localeCompare(b)),
  ]);
  return `screening:${createHash('sha256').update(material).digest('hex')}`;
}
