import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../../../src/collect-garbage.js';

describe('collectGarbage', () => {
  it('frees what nothing references any more, at once and without --expose-gc', async () => {
    let big: number[] | undefined = Array.from({ length: 100_000 }, (_, i) => i);
    const weak = new WeakRef(big);
    big = undefined;
    // A WeakRef's target is kept to the end of the current job: the collection comes after it.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(weak.deref()).toBeUndefined();
  });
});
