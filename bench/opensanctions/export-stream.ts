import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { createGzip, type Gzip } from 'node:zlib';
import { type PlantedTarget, plantedTarget } from './planted-targets.js';
import {
  type Cluster,
  ClusterBuilder,
  type ExportShape,
  type FtmLine,
  RELATION_WINDOW,
  ShapeFacts,
  versionTime,
} from './synthetic-entities.js';

/** One line of an OpenSanctions delta file (what yente reads): the operation and the entity. */
export interface DeltaOp {
  op: 'ADD' | 'MOD' | 'DEL';
  entity: FtmLine | { id: string; schema: string };
}

/**
 * The whole export at `version`: every target that exists then, each with its adjacent entities,
 * some written before it and some after. Generated one target at a time: memory stays bounded.
 */
export function* exportClusters(
  shape: ExportShape,
  version = 0,
  builder = new ClusterBuilder(new ShapeFacts(shape)),
): Generator<Cluster> {
  const facts = new ShapeFacts(shape);
  const end = facts.indicesAt(version);
  for (let index = 0; index < end; index++) {
    if (facts.exists(index, version)) yield builder.build(index, version);
  }
}

export function clusterLines(cluster: Cluster): FtmLine[] {
  return [...cluster.before, cluster.target, ...cluster.after];
}

/**
 * Where targets.nested.json puts each adjacent entity inside its target (FtM's reverse property
 * names), and the property pointing back at the target, which the nested layout leaves out.
 */
const NESTING: Readonly<Record<string, readonly [string, string]>> = {
  Sanction: ['entity', 'sanctions'],
  Occupancy: ['holder', 'positionOccupancies'],
  Passport: ['holder', 'identification'],
  Identification: ['holder', 'identification'],
  Family: ['person', 'familyPerson'],
  Associate: ['person', 'associates'],
  Ownership: ['asset', 'ownershipAsset'],
};

type NestedValue = string | NestedLine;
interface NestedLine extends Omit<FtmLine, 'properties'> {
  properties: Record<string, NestedValue[]>;
}

/**
 * The cluster as one line of OpenSanctions' `targets.nested.json`: the target with its adjacent
 * entities inside its properties, an Occupancy's Position inside the Occupancy. The other party
 * of a relation (the relative, the owner) stays an id here; the real export nests it too.
 */
export function nestedTarget(cluster: Cluster, builder: ClusterBuilder, version: number): NestedLine {
  const adjacent = [...cluster.before, ...cluster.after];
  const byId = new Map(adjacent.map((line) => [line.id, line]));
  const posts = new Map(cluster.posts.map((p) => [builder.positionId(p), p]));
  const properties: Record<string, NestedValue[]> = { ...cluster.target.properties };
  if (properties.addressEntity)
    properties.addressEntity = properties.addressEntity.map((id) => byId.get(id as string) ?? id);
  for (const line of adjacent) {
    const rule = NESTING[line.schema];
    if (!rule) continue;
    const [back, property] = rule;
    const { [back]: _target, ...rest } = line.properties;
    const nested: Record<string, NestedValue[]> = rest;
    if (rest.post) {
      nested.post = rest.post.map((id) => {
        const position = posts.get(id);
        return position === undefined ? id : builder.positionLine(position, version);
      });
    }
    properties[property] = [...(properties[property] ?? []), { ...line, properties: nested }];
  }
  return { ...cluster.target, properties };
}

/** The planted targets of the export at `version`. */
export function* plantedTargets(shape: ExportShape, version = 0): Generator<PlantedTarget> {
  const facts = new ShapeFacts(shape);
  const builder = new ClusterBuilder(facts);
  const end = facts.indicesAt(version);
  for (let index = 0; index < end; index++) {
    if (facts.isPlanted(index) && facts.exists(index, version))
      yield plantedTarget(builder.build(index, version), shape.seed, facts.addedIn(index));
  }
}

// last_seen moves with every export; a delta, like OpenSanctions', carries content changes only.
const content = (line: FtmLine) => JSON.stringify({ ...line, last_seen: undefined });

function* diff(before: readonly FtmLine[], after: readonly FtmLine[]): Generator<DeltaOp> {
  const old = new Map(before.map((line) => [line.id, line]));
  for (const line of after) {
    const previous = old.get(line.id);
    old.delete(line.id);
    if (!previous) yield { op: 'ADD', entity: line };
    else if (content(previous) !== content(line)) yield { op: 'MOD', entity: line };
  }
  for (const line of old.values()) yield { op: 'DEL', entity: { id: line.id, schema: line.schema } };
}

/**
 * The delta from `version - 1` to `version` (version >= 1), in OpenSanctions' delta format: the
 * targets deleted (with their adjacent entities and the relations that pointed at them),
 * modified (a new alias; some newly sanctioned, with their new Sanction) and added (among them
 * the planted newly sanctioned targets). Applying it to export `version - 1` gives export `version`.
 * `planted` receives the planted targets this version sanctions, for monitoring runs.
 */
export function* deltaOps(
  shape: ExportShape,
  version: number,
  planted?: (target: PlantedTarget) => void,
): Generator<DeltaOp> {
  if (version < 1) throw new Error('a delta goes from version v - 1 to v: v must be 1 or more');
  const facts = new ShapeFacts(shape);
  const builder = new ClusterBuilder(facts);
  const previous = version - 1;
  const linesAt = (index: number, v: number) =>
    facts.exists(index, v) ? clusterLines(builder.build(index, v)) : [];
  const existing = facts.indicesAt(previous);
  const touched = new Set<number>();
  for (let index = 0; index < existing; index++) {
    const change = facts.changeAt(index, version);
    if (!change || !facts.exists(index, previous)) continue;
    const affected = [index];
    // The relations that pointed at a deleted target go with it.
    if (change === 'delete') for (let k = 1; k <= RELATION_WINDOW; k++) affected.push(index + k);
    for (const k of affected) {
      if (touched.has(k) || k >= existing) continue;
      touched.add(k);
      yield* diff(linesAt(k, previous), linesAt(k, version));
    }
    if (change === 'modify' && facts.isPlanted(index) && planted) {
      const cluster = builder.build(index, version);
      const before = builder.build(index, previous);
      const now = cluster.target.properties.topics ?? [];
      if (now.includes('sanction') && !(before.target.properties.topics ?? []).includes('sanction'))
        planted(plantedTarget(cluster, shape.seed, version));
    }
  }
  for (let index = existing; index < facts.indicesAt(version); index++) {
    const cluster = builder.build(index, version);
    for (const line of clusterLines(cluster)) yield { op: 'ADD', entity: line };
    if (facts.isPlanted(index) && planted) planted(plantedTarget(cluster, shape.seed, version));
  }
}

/** OpenSanctions names versions by their time and a suffix: 20261102060000-syn. */
export function versionName(version: number): string {
  return `${new Date(versionTime(version)).toISOString().replace(/\D/g, '').slice(0, 14)}-syn`;
}

/**
 * A text file written line by line with backpressure (and gzip when asked): lines are gathered
 * into chunks of about 256 KB, and a chunk the stream cannot take yet waits for its drain.
 */
export class LineFile {
  private readonly file: WriteStream;
  private readonly gzip: Gzip | undefined;
  private chunk: string[] = [];
  private chunkLength = 0;
  lines = 0;

  constructor(path: string, gzip = false) {
    this.file = createWriteStream(path);
    this.gzip = gzip ? createGzip({ level: 6 }) : undefined;
    this.gzip?.pipe(this.file);
  }

  async write(line: string): Promise<void> {
    this.chunk.push(line, '\n');
    this.chunkLength += line.length + 1;
    this.lines++;
    if (this.chunkLength >= 256 * 1024) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.chunk.length === 0) return;
    const text = this.chunk.join('');
    this.chunk = [];
    this.chunkLength = 0;
    const sink = this.gzip ?? this.file;
    if (!sink.write(text)) await once(sink, 'drain');
  }

  async close(): Promise<void> {
    await this.flush();
    const finished = once(this.file, 'close');
    (this.gzip ?? this.file).end();
    await finished;
  }
}
