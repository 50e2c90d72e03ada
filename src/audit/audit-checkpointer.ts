import { appendFile, open } from 'node:fs/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';
import {
  CHECKPOINT_FIELD,
  checkpointLine,
  type SignedCheckpoint,
  signCheckpoint,
} from './audit-checkpoint.js';

export interface CheckpointSettings {
  /** The HMAC key; kept outside the database, so the database alone cannot forge a checkpoint. */
  key: Buffer;
  /** Append-only JSON lines file, if the operator chose one. */
  file: string | undefined;
  /** One log line per checkpoint, for operators who ship logs off the host. */
  log: boolean;
  intervalMs: number;
}

/**
 * Writes a signed checkpoint of every chain head now and then, and at shutdown. A chain whose head
 * has not moved since this process last wrote it is not written again. A write that fails is logged
 * and tried again at the next interval (its chains count as not written).
 */
export class AuditCheckpointer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  /** The head row last written per chain by this process. */
  private readonly written = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly logger: FastifyBaseLogger,
    private readonly settings: CheckpointSettings,
  ) {}

  /** Checks that the file can be appended to (a mistake is found at start, not a minute later). */
  async start(): Promise<void> {
    const file = this.settings.file;
    if (file) {
      try {
        await (await open(file, 'a', 0o600)).close();
      } catch (error) {
        throw new Error(`AUDIT_CHECKPOINT_FILE ${file} cannot be appended to: ${(error as Error).message}`);
      }
    }
    this.timer = setInterval(() => void this.run(), this.settings.intervalMs).unref();
  }

  /** Writes the heads that moved; resolves with the number of checkpoints written (0 after a failure). */
  run(): Promise<number> {
    this.running ??= this.write()
      .catch((error: unknown) => {
        this.logger.error({ err: error }, 'audit checkpoint failed; it is tried again at the next interval');
        return 0;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /** Stops the timer and writes a last checkpoint (the audit rows must have been flushed before). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    await this.run();
  }

  private async write(): Promise<number> {
    const heads = await this.db.selectFrom('audit_chain_heads').selectAll().orderBy('chain_id').execute();
    const at = this.clock.now().toISOString();
    const moved = heads.filter((head) => this.written.get(head.chain_id) !== Number(head.seq));
    if (moved.length === 0) return 0;
    const checkpoints = moved.map((head) =>
      signCheckpoint(this.settings.key, {
        chain_id: head.chain_id,
        seq: Number(head.seq),
        hash: head.hash,
        at,
      }),
    );
    if (this.settings.file) {
      await appendFile(this.settings.file, checkpoints.map(checkpointLine).join(''), { mode: 0o600 });
    }
    if (this.settings.log) for (const checkpoint of checkpoints) this.logCheckpoint(checkpoint);
    for (const checkpoint of checkpoints) this.written.set(checkpoint.chain_id, checkpoint.seq);
    return checkpoints.length;
  }

  private logCheckpoint(checkpoint: SignedCheckpoint): void {
    this.logger.info({ [CHECKPOINT_FIELD]: checkpoint }, 'audit checkpoint');
  }
}
