import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import * as foundation from './migrations/0001-foundation.js';
import * as listSnapshots from './migrations/0002-list-snapshots.js';
import * as screenings from './migrations/0003-screenings.js';
import * as webhooks from './migrations/0004-webhooks.js';
import * as listSnapshotChunks from './migrations/0005-list-snapshot-chunks.js';
import * as batches from './migrations/0006-batches.js';
import * as dashboardUsers from './migrations/0007-dashboard-users.js';
import * as dashboardScreenings from './migrations/0008-dashboard-screenings.js';
import * as webhookFanOut from './migrations/0009-webhook-fan-out.js';
import * as lz4Compression from './migrations/0010-lz4-compression.js';
import * as screeningResultJson from './migrations/0011-screening-result-json.js';
import * as attemptWindows from './migrations/0012-attempt-windows.js';
import * as batchItemCompleteness from './migrations/0013-batch-item-completeness.js';
import * as decisions from './migrations/0014-decisions.js';
import * as monitoring from './migrations/0015-monitoring.js';
import * as monitoringRuns from './migrations/0016-monitoring-runs.js';
import * as batchItemRequest from './migrations/0017-batch-item-request.js';
import * as auditedChanges from './migrations/0018-audited-changes.js';
import * as auditedAccountChanges from './migrations/0019-audited-account-changes.js';
import * as screeningRequestId from './migrations/0020-screening-request-id.js';
import * as stagedImports from './migrations/0021-staged-imports.js';

/**
 * Migrations are compiled into the program (no directory scan), so the built service and the
 * tests run the same list. Kysely's migrator takes a lock, so instances starting together on
 * one PostgreSQL database apply each migration once.
 */
const MIGRATIONS: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-list-snapshots': listSnapshots,
  '0003-screenings': screenings,
  '0004-webhooks': webhooks,
  '0005-list-snapshot-chunks': listSnapshotChunks,
  '0006-batches': batches,
  '0007-dashboard-users': dashboardUsers,
  '0008-dashboard-screenings': dashboardScreenings,
  '0009-webhook-fan-out': webhookFanOut,
  '0010-lz4-compression': lz4Compression,
  '0011-screening-result-json': screeningResultJson,
  '0012-attempt-windows': attemptWindows,
  '0013-batch-item-completeness': batchItemCompleteness,
  '0014-decisions': decisions,
  '0015-monitoring': monitoring,
  '0016-monitoring-runs': monitoringRuns,
  '0017-batch-item-request': batchItemRequest,
  '0018-audited-changes': auditedChanges,
  '0019-audited-account-changes': auditedAccountChanges,
  '0020-screening-request-id': screeningRequestId,
  '0021-staged-imports': stagedImports,
};

class CompiledMigrations implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return MIGRATIONS;
  }
}

export async function migrateToLatest(db: Kysely<unknown>): Promise<void> {
  // Kysely looks for its bookkeeping tables in every schema unless told which one: with two
  // schemas on one server (several deployments or test runs) it would find another's and fail.
  const schema = await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(db);
  const migrator = new Migrator({
    db,
    provider: new CompiledMigrations(),
    migrationTableSchema: schema.rows[0]?.schema ?? 'public',
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? '');
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${reason}`);
  }
}

/** The newest migration: a database migrated with this program has applied it. */
export const LATEST_MIGRATION = Object.keys(MIGRATIONS).at(-1)!;
