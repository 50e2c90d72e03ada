import { createHmac, timingSafeEqual } from 'node:crypto';

/** The head of one chain at one moment: what a later verification holds the database to. */
export interface AuditCheckpoint {
  chain_id: string;
  /** The position of the chain's last row (its head). */
  seq: number;
  /** That row's hash. */
  hash: string;
  /** When the head was read (ISO 8601). */
  at: string;
}

/** A checkpoint with its HMAC-SHA256, made with a key the database does not hold. */
export interface SignedCheckpoint extends AuditCheckpoint {
  mac: string;
}

/** The field a checkpoint travels under, alone on a line of the file or in a log line. */
export const CHECKPOINT_FIELD = 'audit_checkpoint';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HASH = /^[0-9a-f]{64}$/;

function macOf(key: Buffer, checkpoint: AuditCheckpoint): Buffer {
  // A fixed order and a version tag: the text signed never depends on how the JSON was written.
  const content = JSON.stringify([
    'audit-checkpoint/1',
    checkpoint.chain_id,
    checkpoint.seq,
    checkpoint.hash,
    checkpoint.at,
  ]);
  return createHmac('sha256', key).update(content).digest();
}

export function signCheckpoint(key: Buffer, checkpoint: AuditCheckpoint): SignedCheckpoint {
  const { chain_id, seq, hash, at } = checkpoint;
  return { chain_id, seq, hash, at, mac: macOf(key, checkpoint).toString('hex') };
}

/** One line of a checkpoint file: `{"audit_checkpoint": {...}}`. */
export function checkpointLine(checkpoint: SignedCheckpoint): string {
  return `${JSON.stringify({ [CHECKPOINT_FIELD]: checkpoint })}\n`;
}

export type LineReading =
  | { kind: 'checkpoint'; checkpoint: AuditCheckpoint }
  | { kind: 'invalid'; problem: string }
  | { kind: 'other' };

/**
 * Reads one line of a checkpoint file or of the service's log. Lines that are no checkpoint (other
 * log lines) are `other`; a line that names a checkpoint but is damaged, malformed or carries a MAC
 * that does not match is `invalid`, so a tampered checkpoint is reported rather than ignored.
 */
export function readCheckpointLine(line: string, key: Buffer): LineReading {
  if (!line.includes(CHECKPOINT_FIELD)) return { kind: 'other' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { kind: 'invalid', problem: 'the line is not valid JSON' };
  }
  const candidate = (parsed as Record<string, unknown> | null)?.[CHECKPOINT_FIELD];
  if (typeof candidate !== 'object' || candidate === null)
    return { kind: 'invalid', problem: `${CHECKPOINT_FIELD} is not an object` };
  const { chain_id, seq, hash, at, mac } = candidate as Record<string, unknown>;
  if (
    typeof chain_id !== 'string' ||
    !UUID.test(chain_id) ||
    typeof seq !== 'number' ||
    !Number.isSafeInteger(seq) ||
    seq < 0 ||
    typeof hash !== 'string' ||
    !HASH.test(hash) ||
    typeof at !== 'string' ||
    Number.isNaN(Date.parse(at)) ||
    typeof mac !== 'string'
  ) {
    return { kind: 'invalid', problem: 'the checkpoint lacks a field or has one of the wrong form' };
  }
  const checkpoint = { chain_id, seq, hash, at };
  const presented = Buffer.from(mac, 'hex');
  const expected = macOf(key, checkpoint);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
    return {
      kind: 'invalid',
      problem: `the signature does not match (checkpoint of ${chain_id} at row ${seq}): altered, or signed with another key`,
    };
  }
  return { kind: 'checkpoint', checkpoint };
}
