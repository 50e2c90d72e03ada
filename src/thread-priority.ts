import fs from 'node:fs';
import os from 'node:os';

/**
 * Lowers the calling thread's CPU priority to `niceness` (0 is the process's own, 19 the lowest):
 * for a thread doing background work, so that on a busy machine a request waits less often for a
 * core behind it, while on an idle one it still runs at full speed. Linux only; elsewhere, or if
 * the system refuses, the thread keeps the process's priority. Call it from the thread itself.
 */
export function lowerThisThreadsPriority(niceness: number): void {
  try {
    // On Linux a thread is a task with its own id, which setpriority() takes like a process id.
    // "<pid>/task/<tid>"; anything else (another PID namespace's /proc) is left alone.
    const link = /^(\d+)\/task\/(\d+)$/.exec(fs.readlinkSync('/proc/thread-self'));
    const taskId = Number(link?.[2]);
    if (link && Number(link[1]) === process.pid && taskId !== process.pid) os.setPriority(taskId, niceness);
  } catch {
    // Not Linux, or no /proc: the thread keeps the process's priority.
  }
}
