import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { EmbeddedDatabaseLock } from './embedded-lock.js';
import { embeddedPool } from './embedded-pg-connection.js';
import { serveInteractiveFirst } from './interactive-first-pool.js';
import { migrateToLatest } from './migrate.js';
import { preparingClient } from './preparing-client.js';
import type { DatabaseSchema } from './schema.js';

export type Db = Kysely<DatabaseSchema>;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl?: string | undefined;
  /** Folder of the embedded database; `undefined` keeps it in memory (tests). */
  dataDir?: string | undefined;
  /**
   * An embedded database not created yet (in memory, or a data folder without one) starts as a
   * copy of this image instead of an empty cluster, skipping PGlite's initdb and the migrations
   * the image has applied.
   */
  embeddedImage?: EmbeddedImage | undefined;
  poolSize: number;
}

/** How long a PostgreSQL connection attempt may take before the request gets a 503. */
export const DATABASE_CONNECT_TIMEOUT_MS = 5_000;
/** Upper bound for any single statement, well under the 30 s request timeout. */
export const DATABASE_STATEMENT_TIMEOUT_MS = 15_000;
/**
 * The embedded database's buffer pool. PostgreSQL's default, 128 MB, lives in PGlite's WebAssembly
 * memory, which grows to hold it at start and never shrinks; the data files stay in the operating
 * system's page cache anyway. A smaller pool is less RSS once it has filled, and screening and
 * batches were no slower with 16 MB.
 */
export const EMBEDDED_SHARED_BUFFERS_MB = 16;
const EMBEDDED_START_PARAMS = [
  ...PGlite.defaultStartParams,
  '-c',
  `shared_buffers=${EMBEDDED_SHARED_BUFFERS_MB}MB`,
  // PGlite runs PostgreSQL in one backend without a checkpointer, so the statement that fills a WAL
  // segment creates the next one itself, in the main thread: zero-filling its 16 MB stalled the
  // event loop long enough to show in the latency of live screenings. Off, the file is
  // created at its size without writing it; WAL records are written and checked as before.
  '-c',
  'wal_init_zero=off',
];

/**
 * An image of an empty, migrated embedded database: a tarball (`embeddedDatabaseImage`), which
 * PGlite unpacks through its own file system, or a folder of data files
 * (`writeEmbeddedDatabaseFolder`), which a new data folder copies with the operating system's
 * calls, leaving PGlite none of the unpacking's memory. An in-memory database starts from a
 * tarball only.
 */
export type EmbeddedImage = Blob | { readonly folder: string };

// Both databases go through the `pg` driver, so one code path serves both (bigint as string, etc.).
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const database = options.databaseUrl
    ? connectPostgres(options.databaseUrl, options.poolSize)
    : openPglite(options.dataDir, options.embeddedImage).then(({ database }) => database);
  const opened = await database;
  try {
    await migrateToLatest(opened.db as Kysely<unknown>);
  } catch (error) {
    await opened.close();
    throw error;
  }
  return opened;
}

/**
 * A pool on an already migrated PostgreSQL database, for a worker thread of this process (the
 * webhook delivery thread): `openDatabase` migrates first, and does so once per process.
 */
export function connectPostgres(url: string, poolSize: number): Database {
  const pool = new pg.Pool({
    Client: preparingClient(pg.Client),
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: DATABASE_CONNECT_TIMEOUT_MS,
    statement_timeout: DATABASE_STATEMENT_TIMEOUT_MS,
  });
  surviveConnectionLoss(pool);
  serveInteractiveFirst(pool);
  const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
  return { db, kind: 'postgres', close: () => db.destroy() };
}

/**
 * An image of an in-memory embedded database just opened and migrated as `openDatabase` does, for
 * `DatabaseOptions.embeddedImage`: tests start many databases, and each one's initdb costs a second
 * of CPU that loading the image does not (the migrations then find nothing left to apply).
 */
export async function embeddedDatabaseImage(): Promise<Blob> {
  return withMigratedPglite(undefined, (pglite) => pglite.dumpDataDir('none'));
}

/**
 * Writes into `folder` (which must not exist) the data files of an empty embedded database opened
 * and migrated as `openDatabase` does: an image a new data folder copies (`EmbeddedImage`).
 */
export async function writeEmbeddedDatabaseFolder(folder: string): Promise<void> {
  const work = `${folder}.partial`;
  fs.rmSync(work, { recursive: true, force: true });
  await withMigratedPglite(work, async () => {});
  fs.renameSync(path.join(work, EMBEDDED_FILES), folder);
  fs.rmSync(work, { recursive: true, force: true });
}

/**
 * Opens an empty embedded database (in `dataDir`, or in memory), migrates it as `openDatabase`
 * does, writes everything to its data files, runs `use` and closes it: what an image is made of.
 */
async function withMigratedPglite<T>(
  dataDir: string | undefined,
  use: (pglite: PGlite) => Promise<T>,
): Promise<T> {
  const { database, pglite } = await openPglite(dataDir, undefined);
  try {
    await migrateToLatest(database.db as Kysely<unknown>);
    // Written to the data files, so that a copy starts without replaying the WAL.
    await pglite.exec('CHECKPOINT');
    return await use(pglite);
  } finally {
    await database.close();
  }
}

/** Whether the embedded database in `dataDir` has been created (by an earlier start). */
export function embeddedDatabaseCreated(dataDir: string): boolean {
  return fs.existsSync(path.join(dataDir, EMBEDDED_FILES, 'PG_VERSION'));
}

/** The embedded database's data files, in its data folder. */
const EMBEDDED_FILES = 'pglite';

async function openPglite(
  dataDir: string | undefined,
  image: EmbeddedImage | undefined,
): Promise<{ database: Database; pglite: PGlite }> {
  let lock: EmbeddedDatabaseLock | undefined;
  let pglite: PGlite;
  if (dataDir) {
    fs.mkdirSync(dataDir, { recursive: true });
    lock = EmbeddedDatabaseLock.acquire(dataDir);
    const files = path.join(dataDir, EMBEDDED_FILES);
    // A database not created yet starts from the image when there is one (no initdb).
    const fromImage = image !== undefined && !embeddedDatabaseCreated(dataDir);
    if (fromImage) {
      try {
        await removeUnfinishedStart(files);
        if (!(image instanceof Blob)) await copyImageFolder(image.folder, files);
      } catch (error) {
        lock.release();
        throw error;
      }
    }
    pglite = new PGlite(files, {
      startParams: EMBEDDED_START_PARAMS,
      ...(fromImage && image instanceof Blob ? { loadDataDir: image } : {}),
    });
  } else {
    pglite = new PGlite({
      startParams: EMBEDDED_START_PARAMS,
      ...(image instanceof Blob ? { loadDataDir: image } : {}),
    });
  }
  try {
    await pglite.waitReady;
  } catch (error) {
    lock?.release();
    throw error;
  }
  const pool = embeddedPool(pglite);
  surviveConnectionLoss(pool);
  serveInteractiveFirst(pool);
  const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
  const database: Database = {
    db,
    kind: 'pglite',
    close: async () => {
      await db.destroy();
      await pglite.close();
      lock?.release();
    },
  };
  return { database, pglite };
}

/**
 * Removes what a first start that stopped halfway left of a database not created (no PG_VERSION):
 * files an image was being unpacked into, and a copy not finished.
 */
async function removeUnfinishedStart(files: string): Promise<void> {
  // Control data without PG_VERSION is a damaged database, not an unfinished start: never removed.
  if (fs.existsSync(path.join(files, 'global', 'pg_control'))) {
    throw new Error(
      `${files} holds database files but no PG_VERSION: restore that file or move the folder away; it is not overwritten.`,
    );
  }
  await fs.promises.rm(files, { recursive: true, force: true });
  await fs.promises.rm(`${files}.partial`, { recursive: true, force: true });
}

/**
 * Copies an image folder to `files`, through a folder of its own renamed at the end: a start that
 * stops halfway leaves no database that looks created (`embeddedDatabaseCreated`).
 */
async function copyImageFolder(folder: string, files: string): Promise<void> {
  const partial = `${files}.partial`;
  await fs.promises.cp(folder, partial, { recursive: true });
  await fs.promises.rename(partial, files);
}

// A connection lost (a PostgreSQL restart; on the embedded database, a failure of PGlite itself)
// fails the query in flight and must not crash the process.
function surviveConnectionLoss(pool: pg.Pool): void {
  // An idle client losing its connection: the pool replaces it.
  pool.on('error', () => {});
  // A client checked out of the pool: pg-pool drops its own error listener while a client is
  // lent, and the error would then be an unhandled 'error' event that kills the process. The
  // query in flight still fails and the pool discards the broken client when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
}

/**
 * Failures to reach the database or to be let in: the network's, and PostgreSQL's refusals of a
 * connection (a database that does not take connections or no longer exists, no connection slot
 * left, credentials refused, a server shutting down or starting). Each passes once the database is
 * back, so it is "unavailable", not a bug; class 08 (connection exceptions) is matched apart.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  // ALLOW_CONNECTIONS false: "database ... is not currently accepting connections".
  '55000',
  // invalid_catalog_name: the database was renamed or dropped.
  '3D000',
  // too_many_connections (also of a role's or a database's CONNECTION LIMIT).
  '53300',
  // invalid_authorization_specification (pg_hba.conf), invalid_password.
  '28000',
  '28P01',
  // admin_shutdown, crash_shutdown, cannot_connect_now.
  '57P01',
  '57P02',
  '57P03',
]);

/** Whether an error means "the database cannot be reached right now" (503) rather than a bug (500). */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(
    message,
  );
}

/** PostgreSQL's class 22 "data exception": a value it cannot take (NUL in text, bad escapes, ...). */
export function isDatabaseDataException(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
}
