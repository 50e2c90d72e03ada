import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

/**
 * Excerpts of every official list file, committed in test/fixtures/lists/ and laid out as a
 * `LISTS_DIR` mirror: what every test reads unless it is about the whole lists.
 */
export const FIXTURE_LISTS_DIR = fileURLToPath(new URL('../fixtures/lists/', import.meta.url)).replace(
  /[\\/]$/,
  '',
);

/** The hand-written FollowTheMoney files and the Wikidata PEP excerpt of test/fixtures/ftm/. */
export const FIXTURE_FTM_DIR = fileURLToPath(new URL('../fixtures/ftm/', import.meta.url)).replace(
  /[\\/]$/,
  '',
);

/**
 * The folder of whole official list files (a `LISTS_DIR` mirror) that suites about real-list
 * behaviour read, named by `TEST_LISTS_DIR`; `.ci/run` points it at the shared data beside the
 * checkout. A clone without it skips those suites, saying why.
 */
export const REAL_LISTS_DIR = process.env.TEST_LISTS_DIR
  ? path.resolve(process.env.TEST_LISTS_DIR)
  : undefined;

/**
 * The folder of the other real data files (`pep/`, `opensanctions/`, `matching/`), named by
 * `TEST_DATA_DIR`: samples whose licence keeps them out of the repository, read only where they are.
 */
export const REAL_DATA_DIR = process.env.TEST_DATA_DIR ? path.resolve(process.env.TEST_DATA_DIR) : undefined;

const NEEDS_LISTS = 'needs TEST_LISTS_DIR: a folder of the official list files';
const NEEDS_DATA = 'needs TEST_DATA_DIR: the folder of the pep/ and opensanctions/ samples';

export function describeWithRealLists(title: string, suite: (listsDir: string) => void): void {
  if (REAL_LISTS_DIR === undefined) {
    describe.skip(`${title} (${NEEDS_LISTS})`, () => {
      it('runs only on the whole official lists', () => {});
    });
    return;
  }
  describe(title, () => suite(REAL_LISTS_DIR!));
}

/** One test of a suite otherwise on the fixtures that needs the whole lists: skipped, saying why, without them. */
export function itWithRealLists(title: string, test: (listsDir: string) => unknown, timeout?: number): void {
  if (REAL_LISTS_DIR === undefined) {
    it.skip(`${title} (${NEEDS_LISTS})`, () => {});
    return;
  }
  it(title, () => test(REAL_LISTS_DIR!), timeout);
}

export function describeWithRealData(title: string, suite: (dataDir: string) => void): void {
  if (REAL_DATA_DIR === undefined) {
    describe.skip(`${title} (${NEEDS_DATA})`, () => {
      it('runs only on the real data samples', () => {});
    });
    return;
  }
  describe(title, () => suite(REAL_DATA_DIR!));
}

/**
 * How many entries the service reads from each excerpt of test/fixtures/lists/ (the parser tests
 * hold each excerpt to its count), for tests that check what a refresh reports.
 */
export const FIXTURE_ENTITY_COUNTS = {
  ofac_sdn: 40,
  ofac_cons: 22,
  un_sc: 59,
  eu_fsf: 5,
  uk_fcdo: 5,
  uk_ofsi: 43,
  us_csl: 68,
} as const;
