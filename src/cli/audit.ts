import { parseArgs } from 'node:util';
import { type CheckpointFileReading, readCheckpointFile } from '../audit/audit-checkpoint-file.js';
import type { Config } from '../config.js';
import { type AdminClient, CliError } from './admin-client.js';

export const AUDIT_USAGE = 'screening audit verify [--account ID] [--checkpoints FILE]';

/** Exit code of a verification that found a break or a bad checkpoint. */
export const AUDIT_BROKEN_EXIT_CODE = 3;

export interface AuditDeps {
  client: () => AdminClient;
  config: Pick<Config, 'auditCheckpointKey'>;
}

async function readCheckpoints(file: string, key: Buffer | undefined, account: string | undefined) {
  if (!key) {
    throw new CliError(
      '--checkpoints needs AUDIT_CHECKPOINT_KEY, the key the service signed them with, to check their signatures.',
    );
  }
  try {
    return await readCheckpointFile(file, key, account);
  } catch (error) {
    throw new CliError(`Cannot read the checkpoints in ${file}: ${(error as Error).message}`);
  }
}

function checkpointSummary(file: string, reading: CheckpointFileReading) {
  return {
    file,
    lines_read: reading.lines_read,
    valid: reading.valid,
    chains: reading.latest.length,
    problems: reading.problems,
  };
}

/**
 * `screening audit verify`: the service recomputes the chains; with `--checkpoints` this command
 * first checks every checkpoint's signature here, then has the service hold each chain to the
 * latest valid checkpoint of it. A bad checkpoint line makes the verification fail too.
 */
export async function runAudit(args: string[], deps: AuditDeps): Promise<{ output: unknown; code: number }> {
  const [action, ...rest] = args;
  if (action !== 'verify') throw new CliError(`Unknown command "audit ${action ?? ''}".\n${AUDIT_USAGE}`);
  const { values } = parseArgs({
    args: rest,
    options: { account: { type: 'string' }, checkpoints: { type: 'string' } },
  });
  const { account, checkpoints: file } = values;
  const query = account ? `?account=${encodeURIComponent(account)}` : '';
  const reading =
    file === undefined ? undefined : await readCheckpoints(file, deps.config.auditCheckpointKey, account);
  const body = reading ? { checkpoints: reading.latest } : undefined;
  const result = (await deps.client().call('POST', `/admin/v1/audit/verify${query}`, body)) as {
    ok: boolean;
  };
  const ok = result.ok && (reading?.problems.length ?? 0) === 0;
  const output = {
    ...result,
    ok,
    ...(reading && file ? { checkpoint_file: checkpointSummary(file, reading) } : {}),
  };
  return { output, code: ok ? 0 : AUDIT_BROKEN_EXIT_CODE };
}
