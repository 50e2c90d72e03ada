#!/usr/bin/env node
import { defaultWorkerCount, serveProcesses } from '../cluster.js';
import { ConfigError, loadConfig } from '../config.js';
import { ADMIN_USAGE, runAdmin } from './admin.js';
import { AdminClient, CliError, readAdminToken } from './admin-client.js';
import { AUDIT_USAGE, runAudit } from './audit.js';
import { COMPARE_USAGE, runCompare } from './compare.js';
import { renderHuman } from './human-output.js';
import { LISTS_USAGE, runLists } from './lists.js';

const USAGE = `Usage:
screening serve [--workers N]
${ADMIN_USAGE}
${LISTS_USAGE}
${AUDIT_USAGE}
${COMPARE_USAGE}

Operator commands talk to a running server: --url URL (default http://127.0.0.1:$PORT), with the
token of ADMIN_TOKEN or DATA_DIR/admin-token. They print tables; --json prints the API's JSON.`;

/** The usage lines of one command group, for `screening <group> --help`. */
const GROUP_USAGE: Record<string, string> = {
  admin: ADMIN_USAGE,
  lists: LISTS_USAGE,
  audit: AUDIT_USAGE,
  compare: COMPARE_USAGE,
  serve: 'screening serve [--workers N]',
};

/** What an operator reads of each list in `lists status`; `--json` has every field. */
const LIST_STATUS_COLUMNS = [
  'id',
  'state',
  'list_date',
  'list_age_days',
  'max_age_days',
  'entity_count',
  'checked_at',
  'last_outcome',
  'last_error',
];

interface GlobalOptions {
  url: string;
  json: boolean;
  help: boolean;
  rest: string[];
}

/** Takes the options every command shares (`--url`, `--json`, `--help`) out of the arguments. */
function extractGlobalOptions(args: string[], port: number): GlobalOptions {
  const options: GlobalOptions = { url: `http://127.0.0.1:${port}`, json: false, help: false, rest: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--url') options.url = args[++i] ?? options.url;
    else if (arg.startsWith('--url=')) options.url = arg.slice('--url='.length);
    else if (arg === '--json') options.json = true;
    else if (arg === '--help' || arg === '-h') options.help = true;
    else options.rest.push(arg);
  }
  return options;
}

/** node:util's parseArgs throws a TypeError for an unknown option: a usage error, not a crash. */
function isArgumentError(error: unknown): error is Error {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const usage = GROUP_USAGE[command];
  if (usage === undefined) {
    process.stderr.write(`screening: unknown command "${command}".\n${USAGE}\n`);
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  if (command === 'compare') {
    return runCompare(args, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
  }
  const config = loadConfig();
  if (command === 'serve') {
    const flag = args.indexOf('--workers');
    const workers = flag >= 0 ? Number(args[flag + 1]) : (config.workers ?? defaultWorkerCount(config));
    if (!Number.isInteger(workers) || workers < 1)
      throw new CliError('--workers takes a whole number of processes.');
    await serveProcesses(config, workers);
    return -1;
  }
  const { url, json, rest } = extractGlobalOptions(args, config.port);
  const client = () => new AdminClient(url, readAdminToken(config));
  let answer: { output: unknown; code: number };
  try {
    if (command === 'admin') answer = { output: await runAdmin(client(), rest), code: 0 };
    else if (command === 'lists') answer = await runLists(rest, { client, config });
    else answer = await runAudit(rest, { client, config });
  } catch (error) {
    if (isArgumentError(error)) throw new CliError(`${error.message}\n${usage}`);
    throw error;
  }
  const columns = command === 'lists' && rest[0] === 'status' ? LIST_STATUS_COLUMNS : undefined;
  process.stdout.write(
    `${json ? JSON.stringify(answer.output, null, 2) : renderHuman(answer.output, columns)}\n`,
  );
  return answer.code;
}

main(process.argv.slice(2)).then(
  (code) => {
    // -1: a server is running and keeps the process alive.
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    const known = error instanceof CliError || error instanceof ConfigError;
    process.stderr.write(`screening: ${known ? error.message : String((error as Error)?.stack ?? error)}\n`);
    process.exitCode = 1;
  },
);
