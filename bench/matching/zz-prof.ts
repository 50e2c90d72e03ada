import { NameIndex } from '../../src/matching/index.js';
import { loadListEntities } from './list-names.js';
import { makeQueries } from './queries.js';
import { syntheticCorpus } from './synthetic.js';

const real = loadListEntities();
const synth = Number(process.argv[2] ?? 0);
const index = NameIndex.build(synth > 0 ? syntheticCorpus(real, synth) : real);
const qs = makeQueries(real, 10000, 2024);
for (let r = 0; r < Number(process.argv[3] ?? 3); r++) {
  const t = performance.now();
  qs.forEach((q, k) =>
    index.search(q, { type: k % 3 === 0 ? 'entity' : 'person', threshold: 0.5, limitPerSource: 10 }),
  );
  console.log(((performance.now() - t) / qs.length).toFixed(3), 'ms mean');
}
