import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { type AuditCheckpoint, readCheckpointLine } from './audit-checkpoint.js';

export interface CheckpointProblem {
  /** 1-based line number in the file. */
  line: number;
  problem: string;
}

export interface CheckpointFileReading {
  lines_read: number;
  /** Lines whose checkpoint verified. */
  valid: number;
  /** The checkpoint of each chain that records the furthest head: the one the database is held to. */
  latest: AuditCheckpoint[];
  problems: CheckpointProblem[];
}

/**
 * Reads a checkpoint file (or a log holding checkpoint lines) line by line and keeps, per chain,
 * the valid checkpoint with the highest row. Chains only grow, so an earlier checkpoint adds nothing
 * the latest does not check: the hash at its row covers every row before it. Two valid checkpoints
 * of one row with different hashes mean the chain was rewritten between them: a problem.
 */
export async function readCheckpointFile(
  file: string,
  key: Buffer,
  chainId?: string,
): Promise<CheckpointFileReading> {
  const reading: CheckpointFileReading = { lines_read: 0, valid: 0, latest: [], problems: [] };
  const latest = new Map<string, AuditCheckpoint & { line: number }>();
  const lines = createInterface({
    input: createReadStream(file, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  for await (const text of lines) {
    reading.lines_read += 1;
    const line = reading.lines_read;
    const result = readCheckpointLine(text, key);
    if (result.kind === 'other') continue;
    if (result.kind === 'invalid') {
      reading.problems.push({ line, problem: result.problem });
      continue;
    }
    const checkpoint = result.checkpoint;
    if (chainId !== undefined && checkpoint.chain_id !== chainId) continue;
    reading.valid += 1;
    const known = latest.get(checkpoint.chain_id);
    if (known && known.seq === checkpoint.seq && known.hash !== checkpoint.hash) {
      reading.problems.push({
        line,
        problem: `two signed checkpoints of ${checkpoint.chain_id} disagree on row ${checkpoint.seq} (line ${known.line} and this one): the chain was rewritten between them`,
      });
    }
    if (!known || checkpoint.seq > known.seq) latest.set(checkpoint.chain_id, { ...checkpoint, line });
  }
  reading.latest = [...latest.values()].map(({ chain_id, seq, hash, at }) => ({ chain_id, seq, hash, at }));
  return reading;
}
