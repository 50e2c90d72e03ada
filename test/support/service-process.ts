import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { FIXTURE_LISTS_DIR } from './real-lists.js';

/** A free TCP port on 127.0.0.1 (asked of the OS, then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'css-e2e-'));
}

/** The service's environment for a child process: nothing inherited that could point elsewhere. */
export function serviceEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    // The lists come from the excerpts committed with the tests: never the official addresses.
    LISTS_DIR: FIXTURE_LISTS_DIR,
    LISTS_ENABLED: 'un_sc,eu_fsf,uk_fcdo',
    // The excerpts' publication dates are real and get older every day: no list is judged by them.
    LISTS_MAX_AGE_DAYS: '0',
    GDELT_ENABLED: 'false',
    GLEIF_ENABLED: 'false',
    ...extra,
  };
}

/** Runs a TypeScript entry of the project in a child process, as `npm start` / the CLI would. */
export function runEntry(entry: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function collect(child: ChildProcess): {
  output: () => { stdout: string; stderr: string };
  done: Promise<Finished>;
} {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const done = new Promise<Finished>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { output: () => ({ stdout, stderr }), done };
}

/** Waits until the output contains `pattern` (or the process ends, or time runs out). */
export async function waitForOutput(
  output: () => { stdout: string; stderr: string },
  pattern: RegExp,
  timeoutMs = 30_000,
): Promise<RegExpMatchArray> {
  const started = Date.now();
  for (;;) {
    const { stdout, stderr } = output();
    const match = (stdout + stderr).match(pattern);
    if (match) return match;
    if (Date.now() - started > timeoutMs)
      throw new Error(`timed out waiting for ${pattern}:\n${stdout}\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function runCli(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<Finished> {
  const child = runEntry('src/cli/index.ts', args, env);
  const { done } = collect(child);
  child.stdin?.end(input ?? '');
  return done;
}
