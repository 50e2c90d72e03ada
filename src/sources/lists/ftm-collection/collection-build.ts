import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseFullDate } from '../../entity-building/dates.js';
import { readFtmEntity, references } from '../../entity-building/ftm-entity.js';
import { BY_ID_REFERENCES, FtmGraph } from '../../entity-building/ftm-graph.js';
import { toListEntity } from '../../entity-building/ftm-mapping.js';
import { ftmRelation } from '../../entity-building/ftm-relations.js';
import type { RawRecord } from '../../list-entity.js';
import { OPENSANCTIONS_SOURCE } from '../../opensanctions-datasets.js';
import { gunzipIfCompressed, inputBytes } from '../parsers/byte-input.js';
import { FtmDamage } from '../parsers/ftm-damage.js';
import { type FileContext, parseError } from '../parsers/list-parse-error.js';
import type { ListInput } from '../parsers/types.js';
import { byteLines } from './byte-lines.js';
import type { CollectionManifest } from './collection-files.js';
import { CollectionWriter } from './collection-writer.js';
import { FtmJoin, type SpooledLine } from './ftm-join.js';
import { ftmLineKind } from './ftm-line-kind.js';
import { SpoolReader, SpoolWriter } from './spool-file.js';

/** How far a build is, told every `PROGRESS_EVERY` lines or targets and at each phase's end. */
export interface BuildProgress {
  phase: 'read' | 'join';
  /** Lines read (`read`) or targets joined (`join`) so far. */
  done: number;
  /** Targets to join (`join` only). */
  total?: number;
}

export interface BuildOptions {
  signal?: AbortSignal;
  onProgress?: (progress: BuildProgress) => void;
}

const PROGRESS_EVERY = 100_000;

/**
 * Builds a collection version in `folder` from an FtM export of any size (`entities.ftm.json` or
 * `targets.nested.json`, plain or gzip), in two passes over a stream: the first spools the lines
 * it keeps on disk and learns which adjacent entities belong to which target, in whatever order
 * the file lists them (FtmJoin); the second joins each target with its adjacent entities, maps it
 * to the common entity model and writes it (CollectionWriter). Memory grows with the number of
 * targets, never with the size of the file. A file that cannot be read whole (not an export, cut
 * short, too many damaged lines) throws, and the version already in `folder` stays.
 */
export async function buildFtmCollection(
  input: ListInput,
  file: string,
  folder: string,
  options: BuildOptions = {},
): Promise<CollectionManifest> {
  const ctx: FileContext = { list: OPENSANCTIONS_SOURCE, file };
  const spoolFolder = `${folder}.spool`;
  rmSync(spoolFolder, { recursive: true, force: true });
  mkdirSync(spoolFolder, { recursive: true });
  const writer = new CollectionWriter(folder);
  try {
    const spools = {
      targets: new SpoolWriter(path.join(spoolFolder, 'targets')),
      side: new SpoolWriter(path.join(spoolFolder, 'side')),
    };
    const join = new FtmJoin();
    let read: LinesRead;
    try {
      read = await readLines(input, ctx, { join, spools, writer }, options);
    } finally {
      spools.targets.close();
      spools.side.close();
    }
    join.finish();
    return writeJoined(join, spoolFolder, writer, read, options);
  } catch (error) {
    writer.abandon();
    throw error;
  } finally {
    rmSync(spoolFolder, { recursive: true, force: true });
  }
}

interface LinesRead {
  lines: number;
  damage: FtmDamage;
  /** The latest `last_seen`: when the export was made, near enough (FtM states no list date). */
  lastSeen: string;
}

/** The first pass: every line sorted, the lines the join needs spooled. */
async function readLines(
  input: ListInput,
  ctx: FileContext,
  {
    join,
    spools,
    writer,
  }: { join: FtmJoin; spools: { targets: SpoolWriter; side: SpoolWriter }; writer: CollectionWriter },
  options: BuildOptions,
): Promise<LinesRead> {
  const read: LinesRead = { lines: 0, damage: new FtmDamage(ctx), lastSeen: '' };
  const bytes = gunzipIfCompressed(
    inputBytes(input, ctx, Number.POSITIVE_INFINITY, options.signal),
    ctx,
    Number.POSITIVE_INFINITY,
  );
  let lastMalformed = false;
  for await (const { line, bytes: text } of byteLines(bytes)) {
    read.lines++;
    if (read.lines % PROGRESS_EVERY === 0) options.onProgress?.({ phase: 'read', done: read.lines });
    let value: unknown;
    try {
      value = JSON.parse(text.toString('utf8'));
    } catch {
      value = undefined;
    }
    const sorted = ftmLineKind(value);
    lastMalformed = sorted.kind === 'not_entity';
    if (sorted.kind === 'not_entity') {
      read.damage.notAnEntity(line, read.lines);
      continue;
    }
    const lastSeen = (value as { last_seen?: unknown }).last_seen;
    if (typeof lastSeen === 'string' && lastSeen > read.lastSeen) read.lastSeen = lastSeen;
    if (sorted.kind === 'target') {
      join.addTarget(sorted.id, { offset: spools.targets.append(text), length: text.byteLength });
    } else if (sorted.kind === 'relation') {
      const entity = readFtmEntity(value);
      const relation = entity && ftmRelation(entity);
      if (relation) writer.addRelation(relation);
    } else if (sorted.kind !== 'other') {
      const sideLine = join.addSideLine({ offset: spools.side.append(text), length: text.byteLength });
      if (sorted.kind === 'by_id') join.addById(sorted.id, sideLine);
      else for (const owner of sorted.owners) join.addAdjacent(owner, sideLine);
    }
  }
  options.onProgress?.({ phase: 'read', done: read.lines });
  if (read.lines === 0) throw parseError(ctx, { byte: 0 }, 'file is empty');
  // Exports may end without a line break, but never with half an entity: the file was cut short.
  if (lastMalformed) {
    throw parseError(
      ctx,
      { line: read.damage.malformedLines.at(-1) },
      'the last line is not a whole entity (the file is cut short)',
    );
  }
  read.damage.checkShare(read.lines);
  return read;
}

/** The second pass: each target with its adjacent entities, mapped and written in the order read. */
function writeJoined(
  join: FtmJoin,
  spoolFolder: string,
  writer: CollectionWriter,
  read: LinesRead,
  options: BuildOptions,
): CollectionManifest {
  const targets = new SpoolReader(path.join(spoolFolder, 'targets'));
  const side = new SpoolReader(path.join(spoolFolder, 'side'));
  let unnamed = 0;
  try {
    for (let ordinal = 0; ordinal < join.targets; ordinal++) {
      if (ordinal % PROGRESS_EVERY === 0) {
        options.signal?.throwIfAborted();
        options.onProgress?.({ phase: 'join', done: ordinal, total: join.targets });
      }
      const graph = new FtmGraph();
      const targetLine = join.target(ordinal);
      const rawText = targets.read(targetLine.offset, targetLine.length);
      const entity = addText(graph, rawText);
      if (!entity) continue;
      const adjacent = join.adjacent(ordinal).map((line) => addLine(graph, side, line));
      for (const holder of [entity, ...adjacent]) {
        if (!holder) continue;
        for (const property of BY_ID_REFERENCES) {
          for (const id of references(holder, property)) {
            const found = graph.entity(id) ? undefined : join.byId(id);
            if (found) addLine(graph, found.spool === 'targets' ? targets : side, found.line);
          }
        }
      }
      const target = graph.targets[0];
      const mapped = target ? toListEntity(target, graph, OPENSANCTIONS_SOURCE) : undefined;
      if (mapped) writer.add(mapped, rawText);
      else unnamed++;
    }
    options.onProgress?.({ phase: 'join', done: join.targets, total: join.targets });
    const listDate = parseFullDate(read.lastSeen);
    return writer.finish({
      source: OPENSANCTIONS_SOURCE,
      lines: read.lines,
      skipped: read.damage.malformedLines.length,
      ...(listDate ? { listDate } : {}),
      warnings: warnings(read, join, unnamed),
    });
  } finally {
    targets.close();
    side.close();
  }
}

/** Reads a spooled line back into the graph; the entity it holds, or undefined. */
function addLine(graph: FtmGraph, spool: SpoolReader, line: SpooledLine) {
  return addText(graph, spool.read(line.offset, line.length));
}

function addText(graph: FtmGraph, text: Buffer) {
  const value = JSON.parse(text.toString('utf8')) as RawRecord;
  const entity = readFtmEntity(value);
  if (entity) graph.add(entity, value);
  return entity;
}

function warnings(read: LinesRead, join: FtmJoin, unnamed: number): string[] {
  const out: string[] = [];
  const damaged = read.damage.warning('');
  if (damaged) out.push(damaged);
  if (join.duplicates > 0)
    out.push(`entities repeating an id already read (the first kept): ${join.duplicates}`);
  if (join.unresolved > 0)
    out.push(`adjacent entities of a target the file does not hold, left out: ${join.unresolved}`);
  if (unnamed > 0) out.push(`targets without any name, left out: ${unnamed}`);
  return out;
}
