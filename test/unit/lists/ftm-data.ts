import { createReadStream, readFileSync } from 'node:fs';
import path from 'node:path';
import type {
  ListInput,
  ListParseOptions,
  ListParseResult,
} from '../../../src/sources/lists/parsers/types.js';
import { parserFor } from './mirror.js';

/** The shared FollowTheMoney files (never copied into the project). */
const DATA_DIR = path.resolve(process.cwd(), '../shared/data');
export const PEP_FILE = path.join(DATA_DIR, 'pep/wikidata_saudi_peps.ftm.jsonl');
export const ZALA_FILE = path.join(DATA_DIR, 'opensanctions/sanctions_sample_zala.ftm.jsonl');
export const EU_SAMPLE_FILE = path.join(DATA_DIR, 'opensanctions/sanctions_sample_t1.ftm.jsonl');

/** The lines of a shared file, each parsed: for deriving variants in a test. */
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

/** Parses a shared file streamed from disk, as the refresh would. */
export function parseFtmFile(file: string): Promise<ListParseResult> {
  return parseFtm(createReadStream(file));
}

export function jsonLines(entities: readonly unknown[]): Buffer {
  return Buffer.from(`${entities.map((entity) => JSON.stringify(entity)).join('\n')}\n`);
}
