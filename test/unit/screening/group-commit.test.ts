import { describe, expect, it } from 'vitest';
import { GroupCommit, writeTogetherThenAlone } from '../../../src/screening/group-commit.js';

/** A write that records each call's items and finishes when the test says so. */
function controlledWrites() {
  const calls: { items: number[]; finish: (error?: Error) => void }[] = [];
  const write = (items: readonly number[]) =>
    new Promise<void>((resolve, reject) => {
      calls.push({ items: [...items], finish: (error) => (error ? reject(error) : resolve()) });
    });
  return { calls, write };
}

/** One turn of the event loop (and the promise callbacks it releases). */
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('group commit', () => {
  it('writes a lone submission alone, one turn of the event loop later', async () => {
    const { calls, write } = controlledWrites();
    const commits = new GroupCommit(write);
    const done = commits.submit('a', 1);
    expect(calls).toHaveLength(0);
    await turn();
    expect(calls.map((c) => c.items)).toEqual([[1]]);
    calls[0]!.finish();
    await expect(done).resolves.toBeUndefined();
  });

  it('writes what was submitted in the same turn together, then what arrived during that write, in order', async () => {
    const { calls, write } = controlledWrites();
    const commits = new GroupCommit(write);
    const first = [1, 2].map((n) => commits.submit('a', n));
    await turn();
    const later = [3, 4, 5].map((n) => commits.submit('a', n));
    expect(calls.map((c) => c.items)).toEqual([[1, 2]]);
    calls[0]!.finish();
    await turn();
    expect(calls.map((c) => c.items)).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
    calls[1]!.finish();
    await expect(Promise.all([...first, ...later])).resolves.toHaveLength(5);
  });

  it('never writes one key twice at a time, and never holds one key back for another', async () => {
    const { calls, write } = controlledWrites();
    const commits = new GroupCommit(write);
    void commits.submit('a', 1);
    void commits.submit('b', 10);
    await turn();
    void commits.submit('a', 2);
    expect(calls.map((c) => c.items)).toEqual([[1], [10]]);
    calls[1]!.finish();
    await turn();
    expect(calls).toHaveLength(2);
    calls[0]!.finish();
    await turn();
    expect(calls.map((c) => c.items)).toEqual([[1], [10], [2]]);
  });

  it('splits a long queue into groups of at most the maximum', async () => {
    const { calls, write } = controlledWrites();
    const commits = new GroupCommit(write, 3);
    const all = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => commits.submit('a', n));
    await turn();
    calls[0]!.finish();
    await turn();
    calls[1]!.finish();
    await turn();
    expect(calls.map((c) => c.items)).toEqual([
      [1, 2, 3],
      [4, 5, 6],
      [7, 8],
    ]);
    calls[2]!.finish();
    await expect(Promise.all(all)).resolves.toHaveLength(8);
  });

  it('writes each member of a failed group alone, so that each gets its own outcome', async () => {
    const writes: number[][] = [];
    const commits = new GroupCommit<number>(async (items) => {
      writes.push([...items]);
      if (items.includes(3)) throw new Error(`refused ${items.join(',')}`);
    });
    const outcomes = [2, 3, 4].map((n) =>
      commits.submit('a', n).then(
        () => 'written',
        (e: Error) => e.message,
      ),
    );
    expect(await Promise.all(outcomes)).toEqual(['written', 'refused 3', 'written']);
    expect(writes).toEqual([[2, 3, 4], [2], [3], [4]]);
  });

  it('passes a lone write’s failure to its submitter and goes on with the queue', async () => {
    const { calls, write } = controlledWrites();
    const commits = new GroupCommit(write);
    const first = commits.submit('a', 1);
    await turn();
    const second = commits.submit('a', 2);
    calls[0]!.finish(new Error('database unavailable'));
    await expect(first).rejects.toThrow('database unavailable');
    await turn();
    expect(calls.map((c) => c.items)).toEqual([[1], [2]]);
    calls[1]!.finish();
    await expect(second).resolves.toBeUndefined();
  });
});

describe('a group write, then each member alone', () => {
  const failing = (refused: number) => async (items: readonly number[]) => {
    if (items.includes(refused)) throw new Error(`refused ${items.join(',')}`);
  };

  it('retries each member alone only for the errors it is told may be a member’s own', async () => {
    const writes: number[][] = [];
    const write = async (items: readonly number[]) => {
      writes.push([...items]);
      await failing(2)(items);
    };
    const outcomes = await writeTogetherThenAlone([1, 2, 3], write, () => false);
    expect(outcomes.map((o) => o.written)).toEqual([false, false, false]);
    expect(writes).toEqual([[1, 2, 3]]);
  });

  it('does not write a lone member twice', async () => {
    const writes: number[][] = [];
    const outcomes = await writeTogetherThenAlone([2], async (items) => {
      writes.push([...items]);
      await failing(2)(items);
    });
    expect(outcomes).toEqual([{ written: false, error: new Error('refused 2') }]);
    expect(writes).toEqual([[2]]);
  });
});
