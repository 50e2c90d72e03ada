import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * The longest a loop over a request's many parts (a CSV's rows, a batch's items) keeps the event
 * loop before it lets the other requests and timers have a turn: a 100,000-row import took 3 to 9 s
 * of CPU in one piece, and no other request was answered meanwhile.
 */
export const WORK_SLICE_MS = 10;

/**
 * Cuts a long loop of CPU work into slices: `if (slices.due()) await slices.pause()` at the top of
 * each step gives the event loop a turn once a slice is spent. `due` is a clock read, so a step may
 * check it every time.
 */
export class WorkSlices {
  private sliceStart = performance.now();

  due(): boolean {
    return performance.now() - this.sliceStart >= WORK_SLICE_MS;
  }

  /** Lets every callback ready to run (I/O, timers) run, then starts a new slice. */
  async pause(): Promise<void> {
    await nextTurn();
    this.sliceStart = performance.now();
  }
}
