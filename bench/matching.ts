import { jaroWinklerCodes, type MatchableEntity, NameIndex } from '../src/matching/index.js';
import { toCodePoints } from '../src/matching/jaro-winkler.js';
import { benchListsDir, loadListEntities } from './matching/list-names.js';
import { makeQueries } from './matching/queries.js';
import { syntheticCorpus } from './matching/synthetic.js';

/**
 * Matching benchmarks (`npm run bench:matching [-- --synthetic-names N --queries N]`): Jaro-Winkler
 * throughput, then build time, heap and per-query latency over the real lists and a synthetic
 * corpus. Run with `node --expose-gc` (the npm script does) for stable heap figures.
 */

function argument(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

/** The JavaScript heap and, apart from it, the typed arrays' buffers (most of an index lives in these). */
const memoryMb = () => {
  (globalThis as { gc?: () => void }).gc?.();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return { heap: heapUsed / 1e6, arrays: arrayBuffers / 1e6 };
};

function benchJaroWinkler(entities: readonly MatchableEntity[]): void {
  const tokens = [
    ...new Set(entities.flatMap((e) => e.names.flatMap((n) => n.full.toUpperCase().split(/[^A-Z]+/)))),
  ]
    .filter((t) => t.length >= 4 && t.length <= 10)
    .slice(0, 3000)
    .map(toCodePoints);
  let sum = 0;
  let comparisons = 0;
  const started = performance.now();
  for (let i = 0; comparisons < 5_000_000; i++) {
    const a = tokens[i % tokens.length]!;
    for (let j = 0; j < 100; j++) {
      const b = tokens[(i * 7 + j * 13) % tokens.length]!;
      sum += jaroWinklerCodes(a, 0, a.length, b, 0, b.length);
      comparisons++;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `Jaro-Winkler, tokens of 4-10 characters: ${(comparisons / seconds / 1e6).toFixed(2)} M comparisons/s (checksum ${sum.toFixed(0)})`,
  );
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function benchIndex(label: string, entities: readonly MatchableEntity[], queries: readonly string[]): void {
  const before = memoryMb();
  const started = performance.now();
  const index = NameIndex.build(entities);
  const buildSeconds = (performance.now() - started) / 1000;
  const after = memoryMb();
  for (const q of queries.slice(0, 200))
    index.search(q, { type: 'person', threshold: 0.5, limitPerSource: 10 });
  const times: number[] = [];
  let matches = 0;
  queries.forEach((q, k) => {
    const t = performance.now();
    const result = index.search(q, {
      type: k % 3 === 0 ? 'entity' : 'person',
      threshold: 0.5,
      limitPerSource: 10,
    });
    times.push(performance.now() - t);
    for (const list of result.values()) matches += list.length;
  });
  times.sort((a, b) => a - b);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  console.log(
    `${label}: ${index.size.entities} entities, ${index.size.names} names; build ${buildSeconds.toFixed(1)} s, index heap ${(after.heap - before.heap).toFixed(0)} MB + typed arrays ${(after.arrays - before.arrays).toFixed(0)} MB (process: heap ${after.heap.toFixed(0)} MB + typed arrays ${after.arrays.toFixed(0)} MB); ` +
      `${times.length} queries at threshold 0.5: p50 ${percentile(times, 50).toFixed(3)} ms, p99 ${percentile(times, 99).toFixed(3)} ms, max ${times[times.length - 1]!.toFixed(1)} ms, mean ${mean.toFixed(3)} ms, ${(matches / times.length).toFixed(1)} matches/query`,
  );
}

if (!(globalThis as { gc?: unknown }).gc) {
  console.log(
    'note: heap figures are unreliable without a forced GC; run `node --expose-gc --import tsx bench/matching.ts`',
  );
}
const real = loadListEntities(benchListsDir('bench:matching'));
benchJaroWinkler(real);
const queryCount = argument('queries', 10_000);
const queries = makeQueries(real, queryCount, 2024);
benchIndex('real lists', real, queries);
const syntheticNames = argument('synthetic-names', 1_000_000);
if (syntheticNames > 0)
  benchIndex(`synthetic ${syntheticNames} names`, syntheticCorpus(real, syntheticNames), queries);
