import type { ListParseCounts, ListParserDescriptor } from './parsers/types.js';
import { chunkEntities, type SnapshotChunk } from './snapshot-chunks.js';
import type { ListParseSettings } from './snapshot-store.js';

/**
 * A parsed list version in its stored form (chunks) with what the refresh reports about it. The
 * parser's entity objects do not outlive the parse: the chunks are all that is kept, stored and
 * loaded, whether the version was just parsed or read back from the database.
 */
export interface ParsedVersion {
  entityCount: number;
  listDate: string | undefined;
  counts: ListParseCounts;
  warnings: string[];
  chunks: SnapshotChunk[];
}

/** Parses the files of one version completely and chunks the entities. */
export async function parseVersion(
  parser: ListParserDescriptor,
  files: ReadonlyMap<string, Uint8Array>,
  settings: ListParseSettings,
  signal?: AbortSignal,
): Promise<ParsedVersion> {
  const parsed = await parser.parse(new Map(files), {
    ...(signal ? { signal } : {}),
    ...(settings.skipLists ? { skipLists: settings.skipLists } : {}),
  });
  return {
    entityCount: parsed.entities.length,
    listDate: parsed.listDate,
    counts: parsed.counts,
    warnings: parsed.warnings,
    chunks: chunkEntities(parsed.entities),
  };
}
