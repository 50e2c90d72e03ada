import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Database,
  type EmbeddedImage,
  openDatabase,
  writeEmbeddedDatabaseFolder,
} from '../../src/store/database.js';
import { embeddedPool } from '../../src/store/embedded-pg-connection.js';
import { LATEST_MIGRATION } from '../../src/store/migrate.js';
import { embeddedImage } from '../support/embedded-image.js';

// The embedded database behind node-postgres through the service's own connection
// (embedded-pg-connection.ts): what PostgreSQL would answer, however large, errors included.
describe('the embedded database through its pg connection', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({ poolSize: 1 });
  });
  afterAll(() => database.close());

  it("answers a failing statement with PostgreSQL's error, and the session goes on", async () => {
    await sql`CREATE TABLE t (id int PRIMARY KEY)`.execute(database.db);
    await sql`INSERT INTO t VALUES (1)`.execute(database.db);
    const duplicate = await sql`INSERT INTO t VALUES (1)`
      .execute(database.db)
      .catch((error: unknown) => error);
    expect(duplicate).toMatchObject({ code: '23505', constraint: 't_pkey' });
    const failed = database.db.transaction().execute(async (trx) => {
      await sql`INSERT INTO t VALUES (2)`.execute(trx);
      await sql`SELECT 1 / 0`.execute(trx);
    });
    await expect(failed).rejects.toMatchObject({ code: '22012' });
    const rows = await database.db.transaction().execute(async (trx) => {
      await sql`INSERT INTO t VALUES (3)`.execute(trx);
      return (await sql<{ id: number }>`SELECT id FROM t ORDER BY id`.execute(trx)).rows;
    });
    expect(rows).toEqual([{ id: 1 }, { id: 3 }]);
  });

  it('returns every row of a large answer, and statements sent together each get their own', async () => {
    const [large, empty, one] = await Promise.all([
      sql<{
        i: number;
        pad: string;
      }>`SELECT i, repeat('é', i % 100) AS pad FROM generate_series(1, 20000) AS i`.execute(database.db),
      sql`SELECT 1 WHERE false`.execute(database.db),
      sql<{ text: string }>`SELECT ${'a lone \ud800 surrogate'}::text AS text`.execute(database.db),
    ]);
    expect(large.rows).toHaveLength(20000);
    expect(large.rows[19998]).toEqual({ i: 19999, pad: 'é'.repeat(99) });
    expect(empty.rows).toEqual([]);
    expect(one.rows).toEqual([{ text: 'a lone \ufffd surrogate' }]);
  });

  it('gives the next client a session outside the transaction of a client that died inside one', async () => {
    const pglite = new PGlite();
    const pool = embeddedPool(pglite);
    try {
      await pool.query('CREATE TABLE kept (v text)');
      const dying = await pool.connect();
      await dying.query('BEGIN');
      await dying.query("INSERT INTO kept VALUES ('never committed')");
      dying.release(new Error('the request holding it failed'));
      const next = await pool.connect();
      try {
        await next.query("INSERT INTO kept VALUES ('committed')");
        expect((await next.query('SELECT v FROM kept')).rows).toEqual([{ v: 'committed' }]);
        expect(pglite.isInTransaction()).toBe(false);
      } finally {
        next.release();
      }
    } finally {
      await pool.end();
      await pglite.close();
    }
  });

  it('keeps what was written across several WAL segments (created without zero-filling) after a reopen', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'css-wal-'));
    try {
      let onDisk = await openDatabase({ poolSize: 1, dataDir });
      expect((await sql<{ wal_init_zero: string }>`SHOW wal_init_zero`.execute(onDisk.db)).rows).toEqual([
        { wal_init_zero: 'off' },
      ]);
      await sql`CREATE TABLE written (id int PRIMARY KEY, body text)`.execute(onDisk.db);
      // About 40 MB of WAL: random text does not compress, so each row is written in full.
      for (let batch = 0; batch < 20; batch++) {
        await sql`INSERT INTO written SELECT i, (SELECT string_agg(md5(random()::text || i || k), '') FROM generate_series(1, 64) AS k)
          FROM generate_series(${batch * 1000 + 1}::int, ${(batch + 1) * 1000}::int) AS i`.execute(onDisk.db);
      }
      const segments = fs
        .readdirSync(path.join(dataDir, 'pglite', 'pg_wal'))
        .filter((f) => /^[0-9A-F]{24}$/.test(f));
      expect(segments.length).toBeGreaterThan(1);
      await onDisk.close();
      onDisk = await openDatabase({ poolSize: 1, dataDir });
      try {
        const read = await sql<{
          rows: string;
          bytes: string;
        }>`SELECT count(*) AS rows, sum(length(body)) AS bytes FROM written`.execute(onDisk.db);
        expect(read.rows).toEqual([{ rows: '20000', bytes: String(20000 * 64 * 32) }]);
      } finally {
        await onDisk.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  // The tests' image is a tarball PGlite unpacks; the build's is a folder of data files, copied.
  const IMAGE_MARKER = 'copied-from-image';
  const images: [string, () => Promise<EmbeddedImage>][] = [
    ['a tarball', () => embeddedImage()],
    [
      'a folder of data files',
      async () => {
        const folder = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'css-image-folder-')), 'image');
        await writeEmbeddedDatabaseFolder(folder);
        // PostgreSQL ignores a file of its own in the data folder: it shows the copy was made.
        fs.writeFileSync(path.join(folder, IMAGE_MARKER), 'copied');
        return { folder };
      },
    ],
  ];
  it.each(images)(
    'starts a new data folder from the image of a migrated database (%s), and a restart opens its own files',
    async (_kind, makeImage) => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'css-image-'));
      const image = await makeImage();
      try {
        // What a start stopped halfway may leave: a copy not finished, a folder with no database.
        fs.mkdirSync(path.join(dataDir, 'pglite.partial'));
        fs.writeFileSync(path.join(dataDir, 'pglite.partial', 'PG_VERSION'), '17');
        fs.mkdirSync(path.join(dataDir, 'pglite'));
        fs.writeFileSync(path.join(dataDir, 'pglite', 'left-over'), 'x');
        let onDisk = await openDatabase({ poolSize: 1, dataDir, embeddedImage: image });
        expect(fs.existsSync(path.join(dataDir, 'pglite', 'left-over'))).toBe(false);
        if (!(image instanceof Blob)) {
          expect(fs.readFileSync(path.join(dataDir, 'pglite', IMAGE_MARKER), 'utf8')).toBe('copied');
        }
        const migrated = await sql<{
          name: string;
        }>`SELECT name FROM kysely_migration ORDER BY name DESC LIMIT 1`.execute(onDisk.db);
        expect(migrated.rows).toEqual([{ name: LATEST_MIGRATION }]);
        await sql`INSERT INTO list_states (list_id, checked_at) VALUES ('un_sc', now())`.execute(onDisk.db);
        await onDisk.close();
        expect(fs.existsSync(path.join(dataDir, 'pglite.partial'))).toBe(false);
        // The folder has its database now: the image is not loaded over it.
        onDisk = await openDatabase({ poolSize: 1, dataDir, embeddedImage: image });
        try {
          const kept = await sql<{ list_id: string }>`SELECT list_id FROM list_states`.execute(onDisk.db);
          expect(kept.rows).toEqual([{ list_id: 'un_sc' }]);
        } finally {
          await onDisk.close();
        }
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
        if (!(image instanceof Blob)) fs.rmSync(path.dirname(image.folder), { recursive: true, force: true });
      }
    },
    60_000,
  );

  it('refuses to start over database files that lost their PG_VERSION, and leaves them as they are', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'css-image-'));
    try {
      fs.mkdirSync(path.join(dataDir, 'pglite', 'global'), { recursive: true });
      fs.writeFileSync(path.join(dataDir, 'pglite', 'global', 'pg_control'), 'control data');
      await expect(
        openDatabase({ poolSize: 1, dataDir, embeddedImage: await embeddedImage() }),
      ).rejects.toThrow(/no PG_VERSION/);
      expect(fs.readFileSync(path.join(dataDir, 'pglite', 'global', 'pg_control'), 'utf8')).toBe(
        'control data',
      );
      // The folder is not left locked: a start after the operator's repair can take it.
      fs.rmSync(path.join(dataDir, 'pglite'), { recursive: true });
      const repaired = await openDatabase({ poolSize: 1, dataDir, embeddedImage: await embeddedImage() });
      await repaired.close();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
