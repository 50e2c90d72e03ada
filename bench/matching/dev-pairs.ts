import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';

/** Reads the matching benchmark files of the shared data folder (never copied into the project). */

export const MATCHING_DATA_DIR = path.resolve(process.cwd(), '../shared/data/matching');

export interface LabelledPair {
  caseGroup: string;
  schema: string;
  name1: string;
  name2: string;
  isMatch: boolean;
}

export function readDevPairs(file = path.join(MATCHING_DATA_DIR, 'name_pairs_dev.csv')): LabelledPair[] {
  const rows = parse(readFileSync(file, 'utf8'), { columns: true, skip_empty_lines: true }) as Record<
    string,
    string
  >[];
  return rows.map((r) => ({
    caseGroup: r.case_group!,
    schema: r.schema!,
    name1: r.name1!,
    name2: r.name2!,
    isMatch: r.is_match === 'true',
  }));
}

export interface CrossScriptPair {
  query: string;
  expected: string;
  minScore: number;
  description: string;
}

export function readCrossScriptPairs(
  file = path.join(MATCHING_DATA_DIR, 'watchman_cross_script_pairs.csv'),
): CrossScriptPair[] {
  const lines = readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '' && !l.startsWith('#'));
  const rows = parse(lines.join('\n'), { relax_column_count: true }) as string[][];
  return rows.map((r) => ({
    query: r[0]!,
    expected: r[1]!,
    minScore: Number(r[2]),
    description: r[3] ?? '',
  }));
}

export interface OfacToolScore {
  query: string;
  result: string;
  ofacScore: number;
}

export function readOfacToolScores(
  file = path.join(MATCHING_DATA_DIR, 'ofac_tool_scores_dev.csv'),
): OfacToolScore[] {
  const rows = parse(readFileSync(file, 'utf8'), { columns: true, skip_empty_lines: true }) as Record<
    string,
    string
  >[];
  return rows.map((r) => ({ query: r.query_name!, result: r.result_name!, ofacScore: Number(r.ofac_score) }));
}
