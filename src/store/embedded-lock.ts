import fs from 'node:fs';
import path from 'node:path';

/**
 * PGlite does not lock its data folder, and a second process opening it corrupts it silently.
 * This lockfile (created with O_EXCL, holding the owner's pid) makes a second process fail with a
 * clear message instead; a lockfile left by a process that no longer runs is taken over.
 */
export class EmbeddedDatabaseLock {
  private constructor(private readonly file: string) {}

  static acquire(dataDir: string): EmbeddedDatabaseLock {
    const file = path.join(dataDir, 'pglite.lock');
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        fs.writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
        return new EmbeddedDatabaseLock(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const owner = Number(fs.readFileSync(file, 'utf8').trim());
        if (owner !== process.pid && isRunning(owner)) {
          throw new Error(
            `The embedded database in ${dataDir} is in use by process ${owner}. ` +
              'Stop that process, use another DATA_DIR, or set DATABASE_URL to share a PostgreSQL database.',
          );
        }
        takeOverStaleLock(file, owner, dataDir);
      }
    }
    throw new Error(`Could not take the lock ${file}`);
  }

  release(): void {
    fs.rmSync(this.file, { force: true });
  }
}

/**
 * Moves a dead owner's lock aside. Renaming is atomic, so of two processes taking over the same
 * stale lock only one moves it; if what was moved turns out to be a live process's fresh lock (the
 * other process won in between), it is put back and this process gives way.
 */
function takeOverStaleLock(file: string, staleOwner: number, dataDir: string): void {
  const aside = `${file}.stale-${process.pid}`;
  try {
    fs.renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = Number(fs.readFileSync(aside, 'utf8').trim());
  if (moved !== staleOwner && isRunning(moved)) {
    fs.renameSync(aside, file);
    throw new Error(`The embedded database in ${dataDir} is in use by process ${moved}.`);
  }
  fs.rmSync(aside, { force: true });
}

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
