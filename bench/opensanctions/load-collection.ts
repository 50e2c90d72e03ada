import { createReadStream, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildFtmCollection } from '../../src/sources/lists/ftm-collection/collection-build.js';

/**
 * Builds an FtM collection version from an export file (bench:opensanctions-export writes one),
 * as the service's first load does, and prints each phase's time, the rates, the peak RSS and the
 * sizes on disk. See docs/benchmarks.md.
 *
 *   npm run bench:opensanctions-load -- --file /data/entities.ftm.json --out /data/collection
 */
const { values } = parseArgs({
  options: {
    file: { type: 'string' },
    out: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help || !values.file || !values.out) {
  console.log(
    'options: --file EXPORT (entities.ftm.json or targets.nested.json, plain or gzip) --out FOLDER',
  );
  process.exit(values.help ? 0 : 1);
}

const file = path.resolve(values.file);
const started = performance.now();
const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
const rssMb = () => (process.memoryUsage().rss / 1e6).toFixed(0);
let phaseStarted = started;
let phase = 'read';
const manifest = await buildFtmCollection(
  createReadStream(file),
  path.basename(file),
  path.resolve(values.out),
  {
    onProgress: (progress) => {
      if (progress.phase !== phase) {
        console.log(`${phase} done at ${seconds()} s`);
        phase = progress.phase;
        phaseStarted = performance.now();
      }
      if (progress.done % 500_000 === 0 || progress.done === progress.total) {
        const rate = progress.done / Math.max(0.001, (performance.now() - phaseStarted) / 1000);
        console.log(
          `${progress.phase} ${progress.done}${progress.total ? ` / ${progress.total}` : ''} (${rate.toFixed(0)}/s), ${seconds()} s, RSS ${rssMb()} MB`,
        );
      }
    },
  },
);
const peakMb = (process.resourceUsage().maxRSS / 1024).toFixed(0);
console.log(
  `${file}: ${(statSync(file).size / 1e6).toFixed(1)} MB, ${manifest.lines} lines -> ${manifest.entities} entities, ` +
    `records ${(manifest.recordBytes / 1e6).toFixed(1)} MB; ${seconds()} s, peak RSS ${peakMb} MB`,
);
for (const warning of manifest.warnings) console.log(`  ${warning}`);
