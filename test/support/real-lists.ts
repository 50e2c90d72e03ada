import path from 'node:path';
import { describe, it } from 'vitest';

/**
 * The folder of whole official list files (a `LISTS_DIR` mirror) that suites about real-list
 * behaviour read, named by `TEST_LISTS_DIR`; `.ci/run` points it at the shared data beside the
 * checkout. A clone without it skips those suites, saying why.
 */
export const REAL_LISTS_DIR = process.env.TEST_LISTS_DIR
  ? path.resolve(process.env.TEST_LISTS_DIR)
  : undefined;

export function describeWithRealLists(title: string, suite: (listsDir: string) => void): void {
  if (REAL_LISTS_DIR === undefined) {
    describe.skip(`${title} (needs TEST_LISTS_DIR: a folder of the official list files)`, () => {
      it('runs only on the whole official lists', () => {});
    });
    return;
  }
  describe(title, () => suite(REAL_LISTS_DIR!));
}
