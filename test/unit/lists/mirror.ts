import { createReadStream, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { LIST_PARSERS } from '../../../src/sources/lists/list-registry.js';
import { matchesOfficialFileName } from '../../../src/sources/lists/parsers/index.js';
import type {
  ListInput,
  ListParseOptions,
  ListParseResult,
} from '../../../src/sources/lists/parsers/types.js';
import { FIXTURE_LISTS_DIR } from '../../support/real-lists.js';

/**
 * The mirror the parser tests read by default: the committed excerpts of the official files. The
 * tests of whole-list counts pass the folder of the whole files instead (see describeWithRealLists).
 */
export const LISTS_DIR = FIXTURE_LISTS_DIR;

export function mirrorPath(officialName: string, dir = LISTS_DIR): string {
  const found = readdirSync(dir).find((entry) => matchesOfficialFileName(officialName, entry));
  if (!found) throw new Error(`${officialName} is not in ${dir}`);
  return path.join(dir, found);
}

export function mirrorBytes(officialName: string, dir = LISTS_DIR): Buffer {
  return readFileSync(mirrorPath(officialName, dir));
}

export function parserFor(id: string, format?: string) {
  const parser = LIST_PARSERS.find((p) => p.id === id && (format === undefined || p.format === format));
  if (!parser) throw new Error(`no parser ${id} ${format ?? ''}`);
  return parser;
}

/** Parses a list from the mirror, every file streamed from disk as the refresh would. */
export function parseFromMirror(
  id: string,
  format?: string,
  options?: ListParseOptions,
  dir = LISTS_DIR,
): Promise<ListParseResult> {
  const parser = parserFor(id, format);
  const files = new Map<string, ListInput>();
  for (const spec of parser.files) files.set(spec.name, createReadStream(mirrorPath(spec.name, dir)));
  return parser.parse(files, options);
}

export function entityById(result: ListParseResult, sourceId: string) {
  const entity = result.entities.find((e) => e.source_id === sourceId);
  if (!entity) throw new Error(`${result.source}: no entity ${sourceId}`);
  return entity;
}

export function namesOfType(result: ListParseResult, type: string): number {
  return result.entities.reduce((sum, e) => sum + e.names.filter((n) => n.type === type).length, 0);
}

/** How many records of each kind carry an IMO number (a ship's or a company's). */
export function recordsWithImo(result: ListParseResult): Record<string, number> {
  const byKind: Record<string, number> = {};
  for (const entity of result.entities) {
    if (entity.identifiers.some((id) => id.type === 'imo'))
      byKind[entity.kind] = (byKind[entity.kind] ?? 0) + 1;
  }
  return byKind;
}
