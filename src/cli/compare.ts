import { createInterface } from 'node:readline';
import { compareNames, QUERY_TYPES, type QueryType } from '../matching/index.js';
import { explanationForApi } from '../sources/list-flag.js';
import { renderHuman } from './human-output.js';

/**
 * `screening compare [--type person|organization|vessel|aircraft|entity] "NAME A" "NAME B"` prints one comparison
 * (as JSON with `--json`);
 * `screening compare --jsonl` reads `{"a", "b", "type"}` lines from stdin and writes one `{"score"}`
 * line per input line, in order, so evaluations over thousands of pairs run in one process.
 */

export interface CompareIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export const COMPARE_USAGE =
  'screening compare [--type person|organization|vessel|aircraft|entity] [--json] "NAME A" "NAME B"\nscreening compare --jsonl < pairs.jsonl   (JSON lines {a, b, type} in, {score} lines out)';
const USAGE = `usage: ${COMPARE_USAGE}\n`;

function parseType(value: unknown): QueryType | null {
  return (QUERY_TYPES as readonly unknown[]).includes(value) ? (value as QueryType) : null;
}

interface ParsedArgs {
  type: QueryType;
  jsonl: boolean;
  json: boolean;
  names: string[];
}

function parseArgs(args: string[]): ParsedArgs | string {
  const parsed: ParsedArgs = { type: 'person', jsonl: false, json: false, names: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--jsonl') parsed.jsonl = true;
    else if (arg === '--json') parsed.json = true;
    else if (arg === '--type' || arg.startsWith('--type=')) {
      const value = arg === '--type' ? args[++i] : arg.slice('--type='.length);
      const type = parseType(value);
      if (!type)
        return `invalid --type ${JSON.stringify(value ?? '')}: expected person, organization, vessel, aircraft or entity`;
      parsed.type = type;
    } else if (arg === '--help' || arg === '-h') return '';
    else if (arg.startsWith('--') && arg !== '--') return `unknown option ${arg}`;
    else parsed.names.push(arg);
  }
  if (!parsed.jsonl && parsed.names.length !== 2) return 'expected exactly two names';
  if (parsed.jsonl && parsed.names.length > 0) return '--jsonl reads names from stdin only';
  return parsed;
}

function compareLine(line: string, defaultType: QueryType): string {
  try {
    const input = JSON.parse(line) as { a?: unknown; b?: unknown; type?: unknown };
    if (typeof input.a !== 'string' || typeof input.b !== 'string')
      return JSON.stringify({ error: 'a and b must be strings' });
    const type = input.type === undefined ? defaultType : parseType(input.type);
    if (!type)
      return JSON.stringify({ error: 'type must be person, organization, vessel, aircraft or entity' });
    return JSON.stringify({ score: compareNames(input.a, input.b, type).score });
  } catch {
    return JSON.stringify({ error: 'invalid JSON line' });
  }
}

async function runJsonl(io: CompareIo, type: QueryType): Promise<number> {
  const lines = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    // Blank lines still get an answer line, so output line n always belongs to input line n.
    const out = line.trim() === '' ? JSON.stringify({ error: 'empty line' }) : compareLine(line, type);
    if (!io.stdout.write(`${out}\n`)) await new Promise((resolve) => io.stdout.once('drain', resolve));
  }
  return 0;
}

export async function runCompare(args: string[], io: CompareIo): Promise<number> {
  const parsed = parseArgs(args);
  if (typeof parsed === 'string') {
    io.stderr.write(parsed === '' ? USAGE : `${parsed}\n${USAGE}`);
    return parsed === '' ? 0 : 2;
  }
  if (parsed.jsonl) return runJsonl(io, parsed.type);
  const [a, b] = parsed.names as [string, string];
  const result = compareNames(a, b, parsed.type);
  const output = {
    score: result.score,
    prepared_a: result.preparedA,
    prepared_b: result.preparedB,
    // Written as the API writes a flag's `details.match_explanation`.
    explanation: explanationForApi(result.explanation),
  };
  io.stdout.write(`${parsed.json ? JSON.stringify(output, null, 2) : renderHuman(output)}\n`);
  return 0;
}
