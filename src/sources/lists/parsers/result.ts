import type { EntityKind, ListEntity } from '../../list-entity.js';
import type { ListParseLimits } from './limits.js';
import { type FileContext, parseError } from './list-parse-error.js';
import type { ListParseResult } from './types.js';

export interface ResultInput {
  source: string;
  entities: ListEntity[];
  records: number;
  skipped?: number;
  listDate?: string;
  warnings?: string[];
}

/**
 * Counts the entities and refuses an empty list: a real sanctions list is never empty, so an
 * empty result means a broken download, and serving it would silently clear every match.
 */
export function finishResult(input: ResultInput, ctx: FileContext): ListParseResult {
  if (input.entities.length === 0) throw parseError(ctx, {}, 'file holds no list entries');
  const byKind: Record<EntityKind, number> = {
    person: 0,
    organization: 0,
    vessel: 0,
    aircraft: 0,
    unknown: 0,
  };
  let names = 0;
  for (const entity of input.entities) {
    byKind[entity.kind]++;
    names += entity.names.length;
  }
  const result: ListParseResult = {
    source: input.source,
    entities: input.entities,
    counts: {
      entities: input.entities.length,
      names,
      byKind,
      records: input.records,
      skipped: input.skipped ?? 0,
    },
    warnings: input.warnings ?? [],
  };
  if (input.listDate) result.listDate = input.listDate;
  return result;
}

/** Adds an entity, failing once the list exceeds the entity cap. */
export function pushEntity(
  entities: ListEntity[],
  entity: ListEntity,
  limits: ListParseLimits,
  ctx: FileContext,
) {
  if (entities.length >= limits.maxEntities) {
    throw parseError(ctx, { record: entities.length + 1 }, `more than ${limits.maxEntities} entries`);
  }
  entities.push(entity);
}

/** The input for `name`, or a clear error when a required file was not supplied. */
export function requireFile<T>(files: ReadonlyMap<string, T>, name: string, list: string): T {
  const input = findFile(files, name);
  if (input === undefined) throw parseError({ list, file: name }, {}, 'required file is missing');
  return input;
}

/** Looks a file up by its official name, ignoring case. */
export function findFile<T>(files: ReadonlyMap<string, T>, name: string): T | undefined {
  const direct = files.get(name);
  if (direct !== undefined) return direct;
  const wanted = name.toLowerCase();
  for (const [key, value] of files) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}
