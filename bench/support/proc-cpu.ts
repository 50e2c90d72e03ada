import fs from 'node:fs';

/** Milliseconds per clock tick of /proc's CPU times (USER_HZ is 100 on Linux). */
const MS_PER_TICK = 10;

/**
 * CPU time (user + system, ms) in the text of a /proc `stat` file, a process's or a thread's. The
 * fields are read after the command name, which is in parentheses and may hold spaces: utime and
 * stime are fields 14 and 15 of the line, the 12th and 13th after the name.
 */
export function cpuMsOfStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
}

/** CPU time (ms) of each thread of a process, by thread id (Linux). */
export function threadCpuMs(pid: number): Map<number, number> {
  const times = new Map<number, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      times.set(Number(tid), cpuMsOfStat(fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return times;
}

/** What each kind of thread spent between two readings, in ms. */
export interface ThreadCpuSplit {
  /** The thread that runs the event loop (its id is the process id). */
  main: number;
  /** The busiest other thread: under live screenings, the matching thread. */
  busiestOther: number;
  /** Every other thread together: V8's helpers (garbage collection, compilation), libuv's pool. */
  rest: number;
}

export function cpuBetween(
  pid: number,
  before: Map<number, number>,
  after: Map<number, number>,
): ThreadCpuSplit {
  const others: number[] = [];
  for (const [tid, ms] of after) if (tid !== pid) others.push(ms - (before.get(tid) ?? 0));
  others.sort((a, b) => b - a);
  const rest = others.slice(1).reduce((sum, ms) => sum + ms, 0);
  return { main: (after.get(pid) ?? 0) - (before.get(pid) ?? 0), busiestOther: others[0] ?? 0, rest };
}

/**
 * CPU time (ms) of every process whose command name matches, all threads together: the database
 * and cache servers a screening also spends time in (`postgres` backends, `redis-server`). Counts
 * whatever else those servers do meanwhile, so measure on an otherwise idle machine.
 */
export function processesCpuMs(commandName: RegExp): number {
  let total = 0;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (!commandName.test(fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim())) continue;
      total += cpuMsOfStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}

/** The whole machine's busy CPU time (ms, every core: user, nice, system, interrupts, steal) from /proc/stat. */
export function machineBusyMs(): number {
  const [user, nice, system, , , irq, softirq, steal] = fs
    .readFileSync('/proc/stat', 'utf8')
    .split('\n', 1)[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) * MS_PER_TICK;
}
