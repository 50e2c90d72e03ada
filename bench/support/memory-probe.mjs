// Preloaded into the service by `npm run bench:memory` (`node --import`); worker threads inherit
// it. Every second each thread writes its own V8 heap and buffer figures to MEMORY_PROBE_DIR, so
// the bench can split the process's RSS by thread. When the bench writes a number to `collect`,
// each thread first runs a full garbage collection (under --expose-gc) and reports that number
// with its figures: garbage not yet collected would otherwise decide the split.
// Without MEMORY_PROBE_DIR it does nothing.
import fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import v8 from 'node:v8';
import threads from 'node:worker_threads';

const dir = process.env.MEMORY_PROBE_DIR;
if (dir) {
  if (threads.isMainThread) {
    // Which entry each thread runs: the thread id alone does not say.
    const require = createRequire(import.meta.url);
    const workerThreads = require('node:worker_threads');
    const Original = workerThreads.Worker;
    workerThreads.Worker = class extends Original {
      constructor(entry, options) {
        super(entry, options);
        const text = String(entry);
        const name = /([\w-]+-thread-entry)/.exec(text)?.[1] ?? text.slice(0, 80);
        fs.appendFileSync(path.join(dir, 'threads.txt'), `${this.threadId} ${name}\n`);
      }
    };
    syncBuiltinESMExports();
  }
  const write = () => {
    let collected = 0;
    try {
      collected = Number(fs.readFileSync(path.join(dir, 'collect'), 'utf8'));
      if (collected > lastCollected) globalThis.gc?.();
      lastCollected = collected;
    } catch {
      // No collection asked for yet.
    }
    const usage = process.memoryUsage();
    const heap = v8.getHeapStatistics();
    const report = {
      threadId: threads.threadId,
      collected,
      at: Date.now(),
      heapUsed: usage.heapUsed,
      heapTotal: usage.heapTotal,
      external: usage.external,
      arrayBuffers: usage.arrayBuffers,
      physical: heap.total_physical_size,
      malloced: heap.malloced_memory,
      spaces: Object.fromEntries(
        v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.physical_space_size]),
      ),
    };
    // Written whole, then renamed: the bench never reads half a report.
    const file = path.join(dir, `thread-${threads.threadId}.json`);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(report));
    fs.renameSync(`${file}.tmp`, file);
  };
  let lastCollected = 0;
  setInterval(write, 1000).unref();
  write();
}
