import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  clusterLines,
  deltaOps,
  exportClusters,
  LineFile,
  nestedTarget,
  plantedTargets,
  versionName,
} from './export-stream.js';
import { describeTokens, harvestListTokens } from './name-tokens.js';
import type { PlantedTarget } from './planted-targets.js';
import { ClusterBuilder, type ExportShape, ShapeFacts } from './synthetic-entities.js';

/**
 * Writes a synthetic OpenSanctions `default` export (entities.ftm.json layout) of name tokens
 * recombined from the official lists, with a sidecar of planted targets for recall; or, with
 * `--delta V`, the delta from version V - 1 to V. See docs/benchmarks.md.
 *
 *   npm run bench:opensanctions-export -- --targets 2000000 --out /data/entities.ftm.json
 *   npm run bench:opensanctions-export -- --targets 2000000 --delta 1 --out /data/delta-1.json
 */
const USAGE = `options: --targets N (2000000) --seed S (1) --planted K (1000) --out FILE (required)
  --version V (0: the base export; V: the export after V deltas) --delta V (the delta to version V)
  --nested (targets.nested.json layout) --gzip --lists-dir DIR (LISTS_DIR, else test/fixtures/lists: the tokens the names recombine)`;

const { values } = parseArgs({
  options: {
    targets: { type: 'string', default: '2000000' },
    seed: { type: 'string', default: '1' },
    planted: { type: 'string', default: '1000' },
    out: { type: 'string' },
    version: { type: 'string', default: '0' },
    delta: { type: 'string' },
    gzip: { type: 'boolean', default: false },
    nested: { type: 'boolean', default: false },
    'lists-dir': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help || !values.out) {
  console.log(USAGE);
  process.exit(values.help ? 0 : 1);
}
const integer = (name: string, text: string) => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, got ${text}`);
  return n;
};

const listsDir = path.resolve(values['lists-dir'] ?? process.env.LISTS_DIR ?? 'test/fixtures/lists');
const started = performance.now();
const tokens = harvestListTokens(listsDir);
console.log(
  `${describeTokens(tokens)} (${listsDir}, ${((performance.now() - started) / 1000).toFixed(1)} s)`,
);
const shape: ExportShape = {
  seed: integer('seed', values.seed),
  targets: integer('targets', values.targets),
  planted: integer('planted', values.planted),
  tokens,
};
const out = path.resolve(values.out);
const file = new LineFile(out, values.gzip);
const planted = new LineFile(`${out}.planted.jsonl`);
const began = performance.now();
let targets = 0;
const progress = (done: number, total: number) => {
  if (done % 100_000 === 0 && done > 0) {
    const seconds = (performance.now() - began) / 1000;
    console.log(`${done} / ${total} targets, ${file.lines} lines, ${seconds.toFixed(0)} s`);
  }
};

if (values.delta !== undefined) {
  const version = integer('delta', values.delta);
  const found: PlantedTarget[] = [];
  const ops = { ADD: 0, MOD: 0, DEL: 0 };
  for (const op of deltaOps(shape, version, (target) => found.push(target))) {
    ops[op.op]++;
    await file.write(JSON.stringify(op));
  }
  for (const target of found) await planted.write(JSON.stringify(target));
  // The delta index yente reads: version name -> delta file.
  const index = { versions: { [versionName(version)]: path.basename(out) } };
  writeFileSync(`${out}.index.json`, `${JSON.stringify(index, null, 2)}\n`);
  console.log(
    `delta ${versionName(version)}: ADD ${ops.ADD}, MOD ${ops.MOD}, DEL ${ops.DEL}; ${found.length} planted newly sanctioned`,
  );
} else {
  const version = integer('version', values.version);
  const builder = new ClusterBuilder(new ShapeFacts(shape));
  for (const cluster of exportClusters(shape, version, builder)) {
    if (values.nested) await file.write(JSON.stringify(nestedTarget(cluster, builder, version)));
    else for (const line of clusterLines(cluster)) await file.write(JSON.stringify(line));
    progress(++targets, shape.targets);
  }
  for (const target of plantedTargets(shape, version)) await planted.write(JSON.stringify(target));
}
await Promise.all([file.close(), planted.close()]);
const seconds = (performance.now() - began) / 1000;
const bytes = statSync(out).size;
const rss = process.memoryUsage().rss / 2 ** 20;
console.log(
  `${out}: ${targets || '-'} targets, ${file.lines} lines, ${(bytes / 2 ** 20).toFixed(1)} MB, ${seconds.toFixed(1)} s ` +
    `(${Math.round(file.lines / seconds)} lines/s), RSS ${rss.toFixed(0)} MB; ${planted.lines} planted in ${out}.planted.jsonl`,
);
