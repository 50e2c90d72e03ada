import { defineConfig } from 'vitest/config';

// Integration tests start real databases (PGlite in-process, PostgreSQL/Redis when configured),
// so they get generous timeouts; nothing here asserts on speed (bench/ does that).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/global-setup.ts'],
  },
});
