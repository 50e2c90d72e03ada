import { parseFullDate } from '../../entity-building/dates.js';
import { readFtmEntity } from '../../entity-building/ftm-entity.js';
import { FtmGraph } from '../../entity-building/ftm-graph.js';
import { toListEntity } from '../../entity-building/ftm-mapping.js';
import type { ListEntity, RawRecord } from '../../list-entity.js';
import { OPENSANCTIONS_SOURCE } from '../../opensanctions-datasets.js';
import { FtmDamage } from './ftm-damage.js';
import { readJsonLines } from './ftm-lines.js';
import { type ListParseLimits, resolveLimits } from './limits.js';
import { type FileContext, parseError } from './list-parse-error.js';
import { finishResult, pushEntity, requireFile } from './result.js';
import { openText } from './text-input.js';
import type { ListFiles, ListParseOptions, ListParseResult } from './types.js';

/** OpenSanctions' flat export: every entity on its own line, linked by ids. */
export const FTM_ENTITIES_FILE = 'entities.ftm.json';
/** OpenSanctions' nested export: one target per line, its adjacent entities inside it. */
export const FTM_NESTED_FILE = 'targets.nested.json';

interface LinesRead {
  records: number;
  damage: FtmDamage;
  /** The latest `last_seen`: when the export was made, near enough (FtM states no list date). */
  lastSeen: string;
}

/**
 * A FollowTheMoney JSON-lines export (OpenSanctions `entities.ftm.json` or `targets.nested.json`;
 * which one is recognised line by line, so either file name may hold either). The whole file is
 * read before any entity is built, because the flat export may list a person's Occupancy before
 * or after the person.
 */
export async function parseFtmJsonl(
  file: string,
  files: ListFiles,
  options: ListParseOptions = {},
): Promise<ListParseResult> {
  const limits = resolveLimits(options.limits);
  const ctx = { list: OPENSANCTIONS_SOURCE, file };
  const text = openText(requireFile(files, file, OPENSANCTIONS_SOURCE), ctx, limits, options.signal);
  const graph = new FtmGraph();
  const read = await readGraph(text, ctx, limits, graph);
  const entities: ListEntity[] = [];
  let unnamed = 0;
  for (const target of graph.targets) {
    const entity = toListEntity(target, graph, OPENSANCTIONS_SOURCE);
    if (entity) pushEntity(entities, entity, limits, ctx);
    else unnamed++;
  }
  const listDate = parseFullDate(read.lastSeen);
  return finishResult(
    {
      source: OPENSANCTIONS_SOURCE,
      entities,
      records: read.records,
      skipped: read.damage.malformedLines.length,
      ...(listDate ? { listDate } : {}),
      warnings: warnings(file, read, graph.duplicates, unnamed),
    },
    ctx,
  );
}

async function readGraph(
  text: AsyncIterable<string>,
  ctx: FileContext,
  limits: ListParseLimits,
  graph: FtmGraph,
): Promise<LinesRead> {
  const read: LinesRead = { records: 0, damage: new FtmDamage(ctx), lastSeen: '' };
  for await (const line of readJsonLines(text, ctx, limits)) {
    read.records++;
    const entity = line.malformed ? undefined : readFtmEntity(line.value);
    if (!entity) {
      read.damage.notAnEntity(line.line, read.records);
      continue;
    }
    graph.add(entity, line.value as RawRecord);
    if (graph.targets.length > limits.maxEntities) {
      throw parseError(ctx, { line: line.line }, `more than ${limits.maxEntities} entries`);
    }
    if (entity.lastSeen && entity.lastSeen > read.lastSeen) read.lastSeen = entity.lastSeen;
  }
  read.damage.checkShare(read.records);
  return read;
}

function warnings(file: string, read: LinesRead, duplicates: number, unnamed: number): string[] {
  const out: string[] = [];
  const damaged = read.damage.warning(`${file}: `);
  if (damaged) out.push(damaged);
  if (duplicates > 0)
    out.push(`${file}: entities repeating an id already read (the first kept): ${duplicates}`);
  if (unnamed > 0) out.push(`${file}: targets without any name, left out: ${unnamed}`);
  return out;
}
