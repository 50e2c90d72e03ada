import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  clusterLines,
  type DeltaOp,
  deltaOps,
  exportClusters,
  nestedTarget,
  plantedTargets,
} from '../../../bench/opensanctions/export-stream.js';
import { harvestListTokens, type NameTokens } from '../../../bench/opensanctions/name-tokens.js';
import {
  ClusterBuilder,
  type ExportShape,
  type FtmLine,
  ShapeFacts,
} from '../../../bench/opensanctions/synthetic-entities.js';
import {
  FTM_ENTITIES_FILE,
  FTM_NESTED_FILE,
  parseFtmJsonl,
} from '../../../src/sources/lists/parsers/ftm-jsonl.js';

const FIXTURE_LISTS = path.resolve('test/fixtures/lists');
const REFERENCE_PROPERTIES: Record<string, string[]> = {
  Sanction: ['entity'],
  Occupancy: ['holder', 'post'],
  Passport: ['holder'],
  Identification: ['holder'],
  Ownership: ['owner', 'asset'],
  Family: ['person', 'relative'],
  Associate: ['person', 'associate'],
};

let tokens: NameTokens;
let shape: ExportShape;
const linesOf = (s: ExportShape, version = 0): FtmLine[] =>
  [...exportClusters(s, version)].flatMap((cluster) => clusterLines(cluster));

beforeAll(() => {
  tokens = harvestListTokens(FIXTURE_LISTS);
  shape = { seed: 7, targets: 3000, planted: 60, tokens };
});

function levenshtein(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  let row = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const next = [i];
    for (let j = 1; j <= y.length; j++)
      next.push(Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1)));
    row = next;
  }
  return row[y.length]!;
}

function applyDelta(lines: FtmLine[], ops: DeltaOp[]): Map<string, string> {
  const byId = new Map(lines.map((line) => [line.id, JSON.stringify({ ...line, last_seen: '' })]));
  for (const { op, entity } of ops) {
    if (op === 'DEL') byId.delete(entity.id);
    else byId.set(entity.id, JSON.stringify({ ...entity, last_seen: '' }));
  }
  return byId;
}

describe('the synthetic OpenSanctions export', () => {
  it('is the same for the same seed and differs for another', () => {
    const small = { ...shape, targets: 300 };
    const a = linesOf(small).map((line) => JSON.stringify(line));
    expect(linesOf(small).map((line) => JSON.stringify(line))).toEqual(a);
    expect(linesOf({ ...small, seed: 8 }).map((line) => JSON.stringify(line))).not.toEqual(a);
  });

  it('writes FtM lines whose ids are unique and whose references all resolve', () => {
    const lines = linesOf(shape);
    const ids = new Set(lines.map((line) => line.id));
    expect(ids.size).toBe(lines.length);
    const KEYS = 'id caption schema properties referents datasets first_seen last_seen last_change target';
    const problems: string[] = [];
    for (const line of lines) {
      if (Object.keys(line).join(' ') !== KEYS) problems.push(`${line.id}: keys ${Object.keys(line)}`);
      for (const [property, values] of Object.entries(line.properties))
        if (values.length === 0 || values.some((value) => !value))
          problems.push(`${line.id}: empty ${property}`);
      for (const property of [...(REFERENCE_PROPERTIES[line.schema] ?? []), 'addressEntity', 'holder']) {
        for (const id of line.properties[property] ?? [])
          if (!ids.has(id)) problems.push(`${line.schema} ${line.id}: ${property} ${id} unresolved`);
      }
    }
    expect(problems).toEqual([]);
    expect(lines.filter((line) => line.target)).toHaveLength(shape.targets);
  });

  it('mixes schemata, topics and line order as the collection does', () => {
    const lines = linesOf(shape);
    const targets = lines.filter((line) => line.target);
    const share = (test: (line: FtmLine) => boolean) => targets.filter(test).length / targets.length;
    const topic = (name: string) => (line: FtmLine) => (line.properties.topics ?? []).includes(name);
    expect(share(topic('role.pep'))).toBeGreaterThan(0.45);
    expect(share(topic('sanction'))).toBeGreaterThan(0.02);
    expect(share(topic('sanction'))).toBeLessThan(0.1);
    expect(share(topic('debarment'))).toBeGreaterThan(0.04);
    expect(share((line) => line.schema === 'Person')).toBeGreaterThan(0.7);
    for (const schema of ['Company', 'Organization', 'Vessel', 'CryptoWallet'])
      expect(
        share((line) => line.schema === schema),
        schema,
      ).toBeGreaterThan(0);
    const schemata = new Set(lines.map((line) => line.schema));
    for (const schema of ['Sanction', 'Occupancy', 'Position', 'Address', 'Ownership', 'Family'])
      expect(schemata.has(schema), schema).toBe(true);
    const clusters = [...exportClusters(shape)];
    expect(clusters.some((cluster) => cluster.before.length > 0)).toBe(true);
    expect(clusters.some((cluster) => cluster.after.length > 0)).toBe(true);
  });

  it('plants targets whose variants are one letter or one reordering away from the name', () => {
    const planted = [...plantedTargets(shape)];
    expect(planted).toHaveLength(shape.planted);
    const ids = new Set(linesOf(shape).map((line) => line.id));
    for (const target of planted) {
      expect(ids.has(target.id)).toBe(true);
      expect(target.variant).not.toBe(target.name);
      if (target.variant_kind === 'typo') expect(levenshtein(target.name, target.variant)).toBe(1);
      else expect([...target.variant.split(' ')].sort()).toEqual([...target.name.split(' ')].sort());
    }
    expect(new Set(planted.map((target) => target.category)).size).toBeGreaterThan(1);
  });

  it('makes deltas that turn one version into the next, with newly sanctioned planted targets', () => {
    const small = { ...shape, targets: 2000 };
    const found: { category: string; version: number }[] = [];
    const kinds = new Set<string>();
    let lines = linesOf(small, 0);
    for (let version = 1; version <= 4; version++) {
      const ops = [...deltaOps(small, version, (target) => found.push(target))];
      for (const op of ops) kinds.add(op.op);
      const next = linesOf(small, version);
      const expected = new Map(next.map((line) => [line.id, JSON.stringify({ ...line, last_seen: '' })]));
      expect(applyDelta(lines, ops), `version ${version}`).toEqual(expected);
      lines = next;
    }
    expect(kinds).toEqual(new Set(['ADD', 'MOD', 'DEL']));
    expect(found.length).toBeGreaterThan(3);
    expect(found.every((target) => target.category === 'sanctions' && target.version > 0)).toBe(true);
  });

  it("reads as the same entities through the service's parser in the flat and the nested layout", async () => {
    const small = { ...shape, targets: 800 };
    const builder = new ClusterBuilder(new ShapeFacts(small));
    const text = (lines: unknown[]) => Buffer.from(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    const clusters = [...exportClusters(small, 0, builder)];
    const parse = async (file: string, lines: unknown[]) =>
      (await parseFtmJsonl(file, new Map([[file, text(lines)]]))).entities.map((e) => ({
        ...e,
        raw: undefined,
      }));
    const flat = await parse(
      FTM_ENTITIES_FILE,
      clusters.flatMap((cluster) => clusterLines(cluster)),
    );
    const nested = await parse(
      FTM_NESTED_FILE,
      clusters.map((cluster) => nestedTarget(cluster, builder, 0)),
    );
    const wallets = clusters.filter((cluster) => cluster.target.schema === 'CryptoWallet').length;
    expect(flat).toHaveLength(small.targets - wallets);
    expect(nested).toEqual(flat);
    expect(flat.filter((entity) => (entity.positions?.length ?? 0) > 0).length).toBeGreaterThan(
      small.targets * 0.4,
    );
  });
});
