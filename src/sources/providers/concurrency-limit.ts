/**
 * At most `limit` tasks at once; the others wait in order. A waiting task whose signal aborts
 * leaves the queue (it never runs and never holds a slot).
 */
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>, signal: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private acquire(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.running < this.limit) {
      this.running += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const turn = () => {
        signal.removeEventListener('abort', leave);
        this.running += 1;
        resolve();
      };
      const leave = () => {
        const at = this.waiting.indexOf(turn);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal.reason);
      };
      this.waiting.push(turn);
      signal.addEventListener('abort', leave, { once: true });
    });
  }

  private release(): void {
    this.running -= 1;
    this.waiting.shift()?.();
  }
}
