import { describe, expect, it } from 'vitest';
import { ConcurrencyLimit } from '../../../src/sources/providers/concurrency-limit.js';

/** A task the test finishes by hand, recording when it started. */
function gate(started: string[], name: string) {
  let open!: () => void;
  const done = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    task: async () => {
      started.push(name);
      await done;
      return name;
    },
    open: () => open(),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const never = () => new AbortController().signal;

describe('concurrency limit', () => {
  it('runs at most the limit at once; the others wait and start in order', async () => {
    const limit = new ConcurrencyLimit(2);
    const started: string[] = [];
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => gate(started, n)) as [
      ReturnType<typeof gate>,
      ReturnType<typeof gate>,
      ReturnType<typeof gate>,
      ReturnType<typeof gate>,
    ];
    const runs = [a, b, c, d].map((g) => limit.run(g.task, never()));
    await tick();
    expect(started).toEqual(['a', 'b']);
    b.open();
    await tick();
    expect(started).toEqual(['a', 'b', 'c']);
    a.open();
    await tick();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    c.open();
    d.open();
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('frees the slot of a task that fails', async () => {
    const limit = new ConcurrencyLimit(1);
    await expect(limit.run(() => Promise.reject(new Error('boom')), never())).rejects.toThrow('boom');
    expect(await limit.run(async () => 'next', never())).toBe('next');
  });

  it('drops a waiting task whose caller gives up: it never runs and holds no slot', async () => {
    const limit = new ConcurrencyLimit(1);
    const started: string[] = [];
    const first = gate(started, 'first');
    const running = limit.run(first.task, never());
    const caller = new AbortController();
    const waiting = limit.run(async () => started.push('abandoned'), caller.signal);
    const after = gate(started, 'after');
    const queued = limit.run(after.task, never());
    caller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    first.open();
    after.open();
    await Promise.all([running, queued]);
    expect(started).toEqual(['first', 'after']);
  });

  it('refuses at once a task whose caller has already given up', async () => {
    const limit = new ConcurrencyLimit(1);
    const caller = new AbortController();
    caller.abort(new Error('too late'));
    let ran = false;
    await expect(
      limit.run(async () => {
        ran = true;
      }, caller.signal),
    ).rejects.toThrow('too late');
    expect(ran).toBe(false);
  });
});
