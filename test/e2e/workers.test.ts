import { expect, it } from 'vitest';
import { describeWithSharedBackends } from '../support/backends.js';
import { isolatedBackend } from '../support/isolated-database.js';
import {
  collect,
  freePort,
  runEntry,
  serviceEnv,
  tempDataDir,
  waitForOutput,
} from '../support/service-process.js';

describeWithSharedBackends('several server processes on one port', (shared) => {
  it('serves from two workers sharing PostgreSQL and Redis, and stops them all on SIGTERM', async () => {
    const { backend, drop } = await isolatedBackend(shared);
    const port = await freePort();
    const primary = runEntry(
      'src/main.ts',
      [],
      serviceEnv({
        DATA_DIR: tempDataDir(),
        PORT: String(port),
        WORKERS: '2',
        DATABASE_URL: backend.databaseUrl!,
        REDIS_URL: backend.redisUrl!,
        LISTS_ENABLED: 'none',
      }),
    );
    const { output, done } = collect(primary);
    try {
      await waitForOutput(output, /listening[\s\S]*listening/i, 60_000);
      const key = (await waitForOutput(output, /cs_live_[0-9A-Za-z]{32}/))[0];
      // Exactly one worker created the default account, and only it printed the key.
      expect(output().stdout.match(/Created the account "default"/g)).toHaveLength(1);
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          fetch(`http://127.0.0.1:${port}/v1/usage`, { headers: { authorization: `Bearer ${key}` } }),
        ),
      );
      expect(answers.every((r) => r.status === 200)).toBe(true);
      primary.kill('SIGTERM');
      expect((await done).code).toBe(0);
    } finally {
      primary.kill('SIGKILL');
      await drop();
    }
  });
});
