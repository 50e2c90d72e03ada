#!/usr/bin/env node
import { defaultWorkerCount, serveProcesses } from '../cluster.js';
import { ConfigError, loadConfig } from '../config.js';
import { ADMIN_USAGE, runAdmin } from './admin.js';
import { AdminClient, CliError, readAdminToken } from './admin-client.js';
import { AUDIT_USAGE, runAudit } from './audit.js';
import { runCompare } from './compare.js';
import { LISTS_USAGE, runLists } from './lists.js';

const USAGE = `Usage:
screening serve [--workers N]
${ADMIN_USAGE}
${LISTS_USAGE}
${AUDIT_USAGE}
screening compare [--type person|organization|vessel|aircraft|entity] "NAME A" "NAME B"   (or --jsonl: JSON lines {a, b, type} on stdin)

Operator commands talk to a running server: --url URL (default http://127.0.0.1:$PORT).`;

/** Takes `--url` out of the arguments wherever it stands. */
function extractUrl(args: string[], port: number): { url: string; rest: string[] } {
  const rest: string[] = [];
  let url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--url') url = args[++i] ?? url;
    else if (arg.startsWith('--url=')) url = arg.slice('--url='.length);
    else rest.push(arg);
  }
  return { url, rest };
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
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
  const { url, rest } = extractUrl(args, config.port);
  const client = () => new AdminClient(url, readAdminToken(config));
  let result: unknown;
  if (command === 'admin') {
    result = await runAdmin(client(), rest);
  } else if (command === 'lists') {
    const { output, code } = await runLists(rest, { client, config });
    process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
    return code;
  } else if (command === 'audit') {
    const { output, code } = await runAudit(rest, { client, config });
    process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
    return code;
  } else {
    process.stderr.write(`${USAGE}\n`);
    return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  }
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  return 0;
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
