/**
 * Reading V8's `--trace-gc --trace-gc-nvp` lines (one per collection, name=value pairs), as a
 * service started with those options writes them to its standard output:
 *
 *   [pid:0xISOLATE]   1234 ms: pause=5.1 mutator=... gc=s ... promoted=1834512 ...
 *
 * Every thread with a V8 isolate (the main thread, the matching thread, the list parser) prints
 * its own lines; the main thread's isolate is the first to print one, at start-up (it collects
 * while the service's modules load, before any worker thread exists).
 */
export interface GcSummary {
  scavenges: number;
  scavengePauseMs: number;
  longestScavengeMs: number;
  /** Bytes the scavenges moved to the old generation. */
  promotedBytes: number;
  markCompacts: number;
  markCompactPauseMs: number;
  /** Time V8's helper threads spent on these collections (the `background.*` fields). */
  backgroundMs: number;
}

/** `[pid:isolate]`, the pause and the kind of collection (`s` scavenge, `mc` mark-compact, ...). */
const LINE = /^\[(\d+:0x[0-9a-f]+)\]\s+\d+ ms: pause=([\d.]+) .*?\bgc=(\w+)/;
const FIELD = / ([\w.]+)=([\d.]+)/g;

/** The collections of process `pid`'s main isolate in what it wrote from `fromOffset` on. */
export function summariseMainIsolateGc(allOutput: string, fromOffset: number, pid: number): GcSummary {
  const mainIsolate = new RegExp(`^\\[${pid}:0x[0-9a-f]+\\]`, 'm').exec(allOutput)?.[0].slice(1, -1);
  const summary: GcSummary = {
    scavenges: 0,
    scavengePauseMs: 0,
    longestScavengeMs: 0,
    promotedBytes: 0,
    markCompacts: 0,
    markCompactPauseMs: 0,
    backgroundMs: 0,
  };
  for (const line of allOutput.slice(fromOffset).split('\n')) {
    const match = LINE.exec(line);
    if (!match || match[1] !== mainIsolate) continue;
    const pause = Number(match[2]);
    const fields = new Map([...line.matchAll(FIELD)].map((m) => [m[1]!, Number(m[2])]));
    for (const [name, value] of fields) if (name.startsWith('background.')) summary.backgroundMs += value;
    if (match[3] === 's') {
      summary.scavenges++;
      summary.longestScavengeMs = Math.max(summary.longestScavengeMs, pause);
      summary.scavengePauseMs += pause;
      summary.promotedBytes += fields.get('promoted') ?? 0;
    } else {
      summary.markCompacts++;
      summary.markCompactPauseMs += pause;
    }
  }
  return summary;
}
