import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a thread on the entry module `file` (a `*-thread-entry` module) beside `importerUrl` (pass
 * `import.meta.url`). Built, both are .js files. Run from source (tsx, vitest) they are TypeScript:
 * the thread then registers tsx's loader first, since Node 20 does not pass loader hooks on to
 * worker threads.
 */
export function startThread(importerUrl: string, file: string, options: WorkerOptions = {}): Worker {
  const fromSource = importerUrl.endsWith('.ts');
  const entry = new URL(`./${file}.${fromSource ? 'ts' : 'js'}`, importerUrl);
  if (!fromSource) return new Worker(entry, options);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const bootstrap = `import(${tsx}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
