import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Work no one is waiting on (batch items): the resources every request shares, the database pool
 * and the matching thread, serve interactive requests first and let background work in a small
 * step at a time, so a request waits for at most one such step (docs/reliability.md, "Batch work
 * yields"). The mark follows the work through every await, so the code it calls, the screening
 * service down to the queries, needs no flag of its own.
 */
const background = new AsyncLocalStorage<true>();

/**
 * Background work running now. Following the mark costs every promise of the process a little,
 * so it is followed only while there is background work: when the last of it ends it is switched
 * off, and the next `inBackground` switches it on again.
 */
let running = 0;

/** Runs `work` (and everything it awaits) as background work. */
export async function inBackground<T>(work: () => Promise<T>): Promise<T> {
  running++;
  try {
    return await background.run(true, work);
  } finally {
    if (--running === 0) background.disable();
  }
}

/** Whether the caller runs as background work. */
export function isBackground(): boolean {
  return background.getStore() === true;
}
