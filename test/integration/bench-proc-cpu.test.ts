import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cpuMsOfStat, machineBusyMs, processesCpuMs } from '../../bench/support/proc-cpu.js';

/**
 * The CPU readings of bench:screening-cost: the ceiling it prints is the machine's cores divided
 * by their sum, so each must count the CPU it names (Linux /proc; 10 ms ticks).
 */
const threadCpuMs = () => cpuMsOfStat(fs.readFileSync('/proc/thread-self/stat', 'utf8'));

/**
 * Keeps this thread busy until it has used `ms` of CPU (not of wall time: on a machine busy with
 * other tests it may wait for a core), and returns the CPU it used.
 */
function spin(ms: number): number {
  const from = threadCpuMs();
  let used = 0;
  while (used < ms) used = threadCpuMs() - from;
  return used;
}

/**
 * Gives this process a name of its own while `body` runs, so that no other process is counted with
 * it: test workers of the same name start and end meanwhile, and one that ends takes its CPU out of
 * the sum. Linux keeps 15 characters of a name.
 */
function asProcessNamed<T>(body: (command: RegExp) => T): T {
  const title = process.title;
  process.title = `cpu-probe-${process.pid % 100_000}`;
  try {
    const name = fs.readFileSync('/proc/self/comm', 'utf8').trim();
    return body(new RegExp(`^${name}$`));
  } finally {
    process.title = title;
  }
}

describe.skipIf(process.platform !== 'linux')('CPU readings of the benchmarks', () => {
  it('counts a process by its command name, every thread of it', () => {
    asProcessNamed((ownCommand) => {
      const before = processesCpuMs(ownCommand);
      const used = spin(200);
      // The process's time and its threads' are each rounded to ticks by the kernel on its own
      // (the process's from the group's runtime): they may differ by one tick of 10 ms.
      expect(processesCpuMs(ownCommand) - before).toBeGreaterThanOrEqual(used - 10);
    });
    expect(processesCpuMs(/^no such command here$/)).toBe(0);
  });

  it('reads the machine busy at least while this process spins', () => {
    const before = machineBusyMs();
    const used = spin(200);
    // /proc/stat counts ticks per core and the thread's own stat per thread: allow a tick each way.
    expect(machineBusyMs() - before).toBeGreaterThanOrEqual(used - 20);
  });
});
