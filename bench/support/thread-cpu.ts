import fs from 'node:fs';

/** CPU time (user + system, ms) of each thread of a process, by thread id, read from /proc (Linux). */
export function threadCpuMs(pid: number): Map<number, number> {
  const times = new Map<number, number>();
  const ticksPerMs = 100 / 1000; // USER_HZ is 100 on Linux
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    // Fields after the command name, which is in parentheses and may hold spaces: utime, stime
    // are fields 14 and 15 of the line, 12th and 13th after the name.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    times.set(Number(tid), (Number(fields[11]) + Number(fields[12])) / ticksPerMs);
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
  let main = 0;
  const others: number[] = [];
  for (const [tid, ms] of after) {
    const spent = ms - (before.get(tid) ?? 0);
    if (tid === pid) main = spent;
    else others.push(spent);
  }
  others.sort((a, b) => b - a);
  const busiestOther = others[0] ?? 0;
  return { main, busiestOther, rest: others.slice(1).reduce((sum, ms) => sum + ms, 0) };
}
