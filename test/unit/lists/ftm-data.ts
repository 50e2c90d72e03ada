import { createReadStream, readFileSync } from 'node:fs';
import path from 'node:path';
import type {
  ListInput,
  ListParseOptions,
  ListParseResult,
} from '../../../src/sources/lists/parsers/types.js';
import { FIXTURE_FTM_DIR } from '../../support/real-lists.js';
import { parserFor } from './mirror.js';

/** An excerpt of the Wikidata PEP file (CC0): the persons the tests name, their offices and families. */
export const PEP_FILE = path.join(FIXTURE_FTM_DIR, 'wikidata_saudi_peps_excerpt.ftm.jsonl');
/** A sanctions export written by hand for the tests (test/fixtures/README.md). */
export const HANDMADE_FILE = path.join(FIXTURE_FTM_DIR, 'sanctions_handmade.ftm.jsonl');

/**
 * The whole samples in the folder TEST_DATA_DIR names: the Wikidata PEP file, and OpenSanctions'
 * samples, whose licence (CC BY-NC) keeps them out of the repository.
 */
export function realFtmFiles(dataDir: string) {
  return {
    PEP_FILE: path.join(dataDir, 'pep/wikidata_saudi_peps.ftm.jsonl'),
    ZALA_FILE: path.join(dataDir, 'opensanctions/sanctions_sample_zala.ftm.jsonl'),
    EU_SAMPLE_FILE: path.join(dataDir, 'opensanctions/sanctions_sample_t1.ftm.jsonl'),
  };
}

/** The lines of a file, each parsed: for deriving variants in a test. */
export function ftmLines(file: string): any[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

/** Parses one input as OpenSanctions' flat export (`entities.ftm.json`) or its nested export. */
export function parseFtm(
  input: ListInput,
  options?: ListParseOptions,
  format: 'ftm_entities' | 'ftm_nested' = 'ftm_entities',
): Promise<ListParseResult> {
  const parser = parserFor('opensanctions', format);
  return parser.parse(new Map([[parser.files[0]!.name, input]]), options);
}

/** Parses a file streamed from disk, as the refresh would. */
export function parseFtmFile(file: string): Promise<ListParseResult> {
  return parseFtm(createReadStream(file));
}

export function jsonLines(entities: readonly unknown[]): Buffer {
  return Buffer.from(`${entities.map((entity) => JSON.stringify(entity)).join('\n')}\n`);
}
