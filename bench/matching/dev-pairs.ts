import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';

/**
 * Reads the labelled matching files (name_pairs_dev.csv, ...) of the folder `MATCHING_DATA_DIR`
 * names; they are not in the repository. Without it the evaluation says so in one line and stops, successfully.
 */
export function matchingDataDir(bench: string): string {
  const dir = process.env.MATCHING_DATA_DIR;
  if (!dir) {
    console.log(`${bench} skipped: set MATCHING_DATA_DIR to the folder of the labelled matching files.`);
    process.exit(0);
  }
  return path.resolve(dir);
}

export interface LabelledPair {
  caseGroup: string;
  schema: string;
  name1: string;
  name2: string;
  isMatch: boolean;
}

export function readDevPairs(dir: string): LabelledPair[] {
  const rows = parse(readFileSync(path.join(dir, 'name_pairs_dev.csv'), 'utf8'), {
    columns: true,
    skip_empty_lines: true,
  }) as Record<string, string>[];
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

export function readCrossScriptPairs(dir: string): CrossScriptPair[] {
  const lines = readFileSync(path.join(dir, 'watchman_cross_script_pairs.csv'), 'utf8')
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

export function readOfacToolScores(dir: string): OfacToolScore[] {
  const rows = parse(readFileSync(path.join(dir, 'ofac_tool_scores_dev.csv'), 'utf8'), {
    columns: true,
    skip_empty_lines: true,
  }) as Record<string, string>[];
  return rows.map((r) => ({ query: r.query_name!, result: r.result_name!, ofacScore: Number(r.ofac_score) }));
}
