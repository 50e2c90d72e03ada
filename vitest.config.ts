import os from 'node:os';
import { defineConfig } from 'vitest/config';

// Integration tests start real databases (PGlite in-process, PostgreSQL/Redis when configured),
// so they get generous timeouts; nothing here asserts on speed (bench/ does that).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // One file per core, and at least two: the files wait on sockets, timers and child processes
    // much of their time, and vitest's default (one fewer than the cores) runs them one at a time
    // on a 2-core machine. Each worker has its own PostgreSQL schema (test/support/worker-stores.ts).
    maxWorkers: Math.max(2, os.availableParallelism()),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/global-setup.ts'],
  },
});
