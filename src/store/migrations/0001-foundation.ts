import { type Kysely, sql } from 'kysely';

/** Accounts, API keys, usage counters and the hash-chained audit log. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('rate_limit_per_minute', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('api_keys_account_idx')
    .on('api_keys')
    .columns(['account_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('usage_counters')
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id'))
    .addColumn('month', 'date', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_counters_pk', ['account_id', 'month'])
    .execute();

  await db.schema
    .createTable('key_usage_counters')
    .addColumn('key_id', 'uuid', (c) => c.notNull().references('api_keys.id'))
    .addColumn('month', 'date', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('key_usage_counters_pk', ['key_id', 'month'])
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('chain_id', 'uuid', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'timestamptz', (c) => c.notNull())
    .addColumn('account_id', 'uuid')
    .addColumn('key_id', 'uuid')
    .addColumn('key_prefix', 'text')
    .addColumn('key_last4', 'text')
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('route', 'text')
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('latency_ms', 'double precision', (c) => c.notNull())
    .addColumn('client_ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addUniqueConstraint('audit_log_chain_seq_uq', ['chain_id', 'seq'])
    .execute();
  await sql`CREATE INDEX audit_log_account_time_idx ON audit_log (account_id, occurred_at DESC, id DESC)`.execute(
    db,
  );

  await db.schema
    .createTable('audit_chain_heads')
    .addColumn('chain_id', 'uuid', (c) => c.primaryKey())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .execute();
}
