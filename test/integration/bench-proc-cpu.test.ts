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

// A worker's title may hold parentheses or dots ("node (vitest 1)"): matched as written.
const ownName = fs.readFileSync('/proc/self/comm', 'utf8').trim();
const ownCommand = new RegExp(`^${ownName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

describe.skipIf(process.platform !== 'linux')('CPU readings of the benchmarks', () => {
  it('counts a process by its command name, every thread of it', () => {
    const before = processesCpuMs(ownCommand);
    const used = spin(200);
    // Other processes of the same name (other test workers) may add to it, never take from it.
    expect(processesCpuMs(ownCommand) - before).toBeGreaterThanOrEqual(used);
    expect(processesCpuMs(/^no such command here$/)).toBe(0);
  });

  it('reads the machine busy at least while this process spins', () => {
    const before = machineBusyMs();
    const used = spin(200);
    // /proc/stat counts ticks per core and the thread's own stat per thread: allow a tick each way.
    expect(machineBusyMs() - before).toBeGreaterThanOrEqual(used - 20);
  });
});
