import { type SelectQueryBuilder, sql } from 'kysely';
import { ServiceError } from '../errors.js';
import { isUuid } from '../ids.js';

/**
 * The cursor of keyset paging on (time, id), for every listing that pages so: the last row's time
 * and id, opaque to the caller (base64url of a JSON pair). The next page starts strictly past that
 * row in the listing's order, so rows added meanwhile are neither repeated nor skipped.
 */
export function encodePageCursor(time: Date | string, id: string): string {
  return Buffer.from(JSON.stringify([new Date(time).toISOString(), id])).toString('base64url');
}

/** The (time, id) a cursor holds; anything this service did not make is a 422 at `pointer`. */
export function decodePageCursor(cursor: string, pointer: string): [Date, string] {
  try {
    const [time, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    const date = new Date(time);
    if (Number.isNaN(date.getTime()) || typeof id !== 'string' || !isUuid(id)) throw new Error('bad cursor');
    return [date, id];
  } catch {
    throw new ServiceError('validation-failed', 'The cursor is not one this service returned.', [
      { pointer, detail: 'must be a next_cursor value from a previous page' },
    ]);
  }
}

/**
 * A page of a listing newest first by (`created_at`, `id`), from `cursor` on (a 422 at `/cursor`
 * when it is not one of ours). One row more than `limit` is read, to know whether a next page exists.
 */
export async function newestFirstPage<DB, TB extends keyof DB, O extends { created_at: Date; id: string }>(
  query: SelectQueryBuilder<DB, TB, O>,
  cursor: string | undefined,
  limit: number,
): Promise<{ rows: O[]; next_cursor: string | null }> {
  let paged = query;
  if (cursor !== undefined) {
    const [time, id] = decodePageCursor(cursor, '/cursor');
    paged = paged.where(sql<boolean>`(created_at, id) < (${time}::timestamptz, ${id}::uuid)`);
  }
  const rows = await paged
    .orderBy(sql`created_at`, 'desc')
    .orderBy(sql`id`, 'desc')
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    rows: page,
    next_cursor: rows.length > limit && last ? encodePageCursor(last.created_at, last.id) : null,
  };
}
