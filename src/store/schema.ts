import type { ColumnType, Selectable } from 'kysely';
import type { FailedSource } from '../sources/source-failure.js';

/** Who did something: an API key of the account or a dashboard user (`decided_by`, `closed_by`). */
export interface Actor {
  type: 'api_key' | 'dashboard_user';
  id: string;
}

/** Column types as the `pg` driver returns them: bigint and numeric come back as strings. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface AccountTable {
  id: string;
  name: string;
  plan: string;
  status: string;
  rate_limit_per_minute: number | null;
  created_at: Timestamp;
  /** Made before account changes were audited (migration 0019): no change in the log to hold it to. */
  predates_audit: ColumnType<boolean, never, never>;
}

export interface ApiKeyTable {
  id: string;
  account_id: string;
  name: string;
  key_hash: string;
  prefix: string;
  last4: string;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
  /** Made before account changes were audited (migration 0019): no change in the log to hold it to. */
  predates_audit: ColumnType<boolean, never, never>;
}

/** Screenings counted per account and calendar month (UTC); `month` is the first day of the month. */
export interface UsageCounterTable {
  account_id: string;
  month: string;
  count: number;
}

export interface KeyUsageCounterTable {
  key_id: string;
  month: string;
  count: number;
}

export interface AuditLogTable {
  id: string;
  chain_id: string;
  seq: ColumnType<string, string | number, never>;
  request_id: string;
  occurred_at: Timestamp;
  account_id: string | null;
  key_id: string | null;
  key_prefix: string | null;
  key_last4: string | null;
  method: string;
  route: string | null;
  path: string;
  /** The response's status and time; null on the row of a change (see `action`). */
  status: number | null;
  latency_ms: number | null;
  client_ip: string | null;
  user_agent: string | null;
  /** The dashboard user behind the request (null for API-key and operator requests, and older rows). */
  user_id: ColumnType<string | null, string | null | undefined, never>;
  /**
   * On the row of a change made by the request (migrations/0018-audited-changes.ts): what was done
   * (`decision.created`, ...), to which row, and that row's hash as the change left it.
   */
  action: ColumnType<string | null, string | null | undefined, never>;
  record_id: ColumnType<string | null, string | null | undefined, never>;
  record_hash: ColumnType<string | null, string | null | undefined, never>;
  prev_hash: string;
  hash: string;
}

/** The last row of each audit chain, so a deletion at the end of a chain is detectable too. */
export interface AuditChainHeadTable {
  chain_id: string;
  seq: ColumnType<string, string | number, string | number>;
  hash: string;
}

/**
 * One accepted version of an official list. Its entities are in `list_snapshot_chunks`
 * (`entities_encoding` 'chunked_gzip'), or, for versions stored before chunks, in `entities` as
 * one gzip-compressed JSON array ('json_gzip'). Pruned versions keep this row without entities.
 */
export interface ListSnapshotTable {
  id: string;
  list_id: string;
  version: string;
  format: string;
  list_date: string | null;
  fetched_at: Timestamp;
  entity_count: number;
  name_count: number;
  counts: ColumnType<unknown, string, string>;
  files: ColumnType<unknown, string, string>;
  parse_options: ColumnType<unknown, string, string>;
  forced: boolean;
  warnings: ColumnType<unknown, string, string>;
  entities: Buffer | null;
  entities_bytes: number;
  entities_encoding: ColumnType<string, string | undefined, string>;
}

/** A consecutive range of one version's entities: names for the index, full records as JSON lines. */
export interface ListSnapshotChunkTable {
  snapshot_id: string;
  seq: number;
  entity_count: number;
  names: Buffer;
  records: Buffer;
}

/** The version in service of each list and the outcome of its last refresh attempt. */
export interface ListStateTable {
  list_id: string;
  snapshot_id: string | null;
  checked_at: Timestamp | null;
  attempted_at: Timestamp | null;
  outcome: string | null;
  error: string | null;
}

/** json and jsonb columns: written as JSON text, read back parsed by the driver. */
type Json<T> = ColumnType<T, string, string>;

export interface ScreeningTable {
  id: string;
  account_id: string;
  /** The API key that made the screening; null for the dashboard's console (then `user_id`). */
  key_id: string | null;
  /** The dashboard user who made it in the console; null for the API. */
  user_id: ColumnType<string | null, string | null | undefined, string | null>;
  entity: string;
  query_type: string;
  request_options: Json<Record<string, unknown>>;
  result: Json<Record<string, unknown>>;
  source_errors: Json<unknown[]>;
  source_versions: Json<Record<string, string>>;
  risk_score: number;
  risk_level: string;
  created_at: Timestamp;
  /** Whom the screening is about (see screening-subject.ts); null for screenings stored before decisions. */
  subject_key: ColumnType<string | null, string | null | undefined, string | null>;
  /** The caller's own id of the party, when the request gave one. */
  reference: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * The request whose audit row records the screening (migration 0020): held to the log by
   * `audit verify`; null for screenings stored before.
   */
  request_id: ColumnType<string | null, string | null | undefined, never>;
}

/** An analyst's decision on a listed record for one subject (see migrations/0014-decisions.ts). */
export interface DecisionTable {
  id: string;
  account_id: string;
  subject_key: string;
  reference: string | null;
  entity: string;
  screening_id: string;
  flag_id: string;
  source: string;
  list: string;
  listed_name: string | null;
  record_hash: string;
  /** false_positive | true_match */
  decision: string;
  note: string;
  key_id: string | null;
  user_id: string | null;
  created_at: Timestamp;
  withdrawn_at: Timestamp | null;
  /** Who withdrew it, or whose decision superseded it: `{type, id}` as `decided_by`. */
  withdrawn_by: ColumnType<Actor | null, string | null | undefined, string | null>;
  /** Made before changes were audited (migration 0017): no change in the log to hold it to. */
  predates_audit: ColumnType<boolean, never, never>;
}

/** A subject kept screened as the lists change (see migrations/0015-monitoring.ts). */
export interface MonitorTable {
  id: string;
  account_id: string;
  key_id: string | null;
  reference: string | null;
  subject_key: string;
  entity: string;
  query_type: string;
  /** The screening request the monitor was created with, as validated. */
  request: Json<Record<string, unknown>>;
  created_at: Timestamp;
  deleted_at: Timestamp | null;
  /** The import that made it (see monitor_imports); null for one made alone. */
  import_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** When its first screening was done: list changes are watched from then on. Null while due. */
  first_screened_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  first_screening_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Why its first screening could not be done (a problem type): it is then not watched. */
  first_screening_error: ColumnType<string | null, string | null | undefined, string | null>;
  /** Lease of an instance doing its first screening. */
  claimed_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  predates_audit: ColumnType<boolean, never, never>;
}

/** An import of many monitors, whose first screenings are done in the background. */
export interface MonitorImportTable {
  id: string;
  account_id: string;
  key_id: string | null;
  total: number;
  created_at: Timestamp;
  completed_at: Timestamp | null;
  /** When it was stored whole: its monitors are hidden until then (migration 0021). */
  stored_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** The lease of the instance staging it, renewed by every chunk. */
  staged_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** When it was given up, its monitors never shown; they are then deleted. */
  abandoned_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** A listed record, in one state, that a monitor is known to be flagged for. */
export interface MonitorFlagTable {
  monitor_id: string;
  flag_id: string;
  record_hash: string;
  flag: Json<Record<string, unknown>>;
  seen_at: Timestamp;
}

/** A new list version, and the job of screening the monitors against what it changed. */
export interface ListChangeTable {
  id: string;
  list_id: string;
  snapshot_id: string;
  previous_snapshot_id: string | null;
  created_at: Timestamp;
  claimed_until: Timestamp | null;
  /** Failed attempts at its run (a shutdown is no failure). */
  attempts: ColumnType<number, number | undefined, number>;
  /** The last monitor (in id order) a run has finished with; a repeated run goes on after it. */
  monitor_cursor: string | null;
  done_at: Timestamp | null;
  summary: Json<Record<string, unknown>> | null;
  /** The claim a run holds: its writes count only while the row still carries it. */
  claim_token: ColumnType<string | null, string | null | undefined, string | null>;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A list change that touched a monitor: one per monitor, record version and reason. */
export interface AlertTable {
  id: string;
  account_id: string;
  monitor_id: string;
  reference: string | null;
  screening_id: string;
  flag_id: string;
  record_hash: string;
  /** The list change whose run raised it. */
  list_change_id: string;
  /** new_match | record_changed | record_removed */
  reason: string;
  list: string;
  list_version: string;
  flags: Json<unknown[]>;
  /** open | closed */
  status: string;
  note: string | null;
  closed_at: Timestamp | null;
  /** Who closed it: `{type, id}`, the API key or the dashboard user. */
  closed_by: ColumnType<Actor | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  predates_audit: ColumnType<boolean, never, never>;
}

/** A customer's endpoint; `secret_ciphertext` is AES-256-GCM sealed (NULL once deleted). */
export interface WebhookTable {
  id: string;
  account_id: string;
  url: string;
  events: string[];
  secret_ciphertext: string | null;
  status: string;
  consecutive_failures: number;
  last_delivery_at: Timestamp | null;
  created_at: Timestamp;
  deleted_at: Timestamp | null;
}

/** Something that happened, with the exact body every webhook receives for it. */
export interface WebhookEventTable {
  id: string;
  account_id: string;
  event: string;
  subject_id: string | null;
  payload: string;
  created_at: Timestamp;
  /** Whether the delivery worker has made the event's deliveries (see webhook-outbox.ts). */
  fanned_out: ColumnType<boolean, boolean | undefined, boolean>;
}

/** One event for one webhook (the outbox row): pending until delivered, failed or cancelled. */
export interface WebhookDeliveryTable {
  id: string;
  event_id: string;
  webhook_id: string;
  status: string;
  attempts: number;
  /** When it is due; while an instance holds it, the end of that claim's lease. */
  next_attempt_at: Timestamp;
  claim_token: string | null;
  created_at: Timestamp;
  finished_at: Timestamp | null;
}

export interface WebhookAttemptTable {
  id: string;
  delivery_id: string;
  webhook_id: string;
  attempt: number;
  attempted_at: Timestamp;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  next_retry_at: Timestamp | null;
}

/** A batch screening request: its items are the jobs. */
export interface BatchTable {
  id: string;
  account_id: string;
  key_id: string;
  /** queued | running | completed | cancelled */
  status: string;
  total: number;
  created_at: Timestamp;
  completed_at: Timestamp | null;
}

/** One name of a batch: pending, running (claimed), completed, failed or cancelled. */
export interface BatchItemTable {
  batch_id: string;
  index: number;
  reference: string | null;
  request: unknown;
  status: string;
  queued_at: Timestamp;
  claim_token: string | null;
  claimed_until: Timestamp | null;
  screening_id: string | null;
  risk_score: number | null;
  risk_level: string | null;
  flag_count: number | null;
  /** The screening's `complete` and `sources_failed`; NULL until completed (and on items completed before they were kept). */
  complete: boolean | null;
  sources_failed: ColumnType<FailedSource[] | null, string | null, string | null>;
  /** What was asked, as screened (src/screening/screened-request.ts); NULL on items queued before it was kept. */
  screened_request: ColumnType<unknown, string | null, string | null>;
  error: string | null;
  finished_at: Timestamp | null;
}

/** A dashboard user: signs in with email and password, belongs to one account. */
export interface UserTable {
  id: string;
  account_id: string;
  /** Normalised: trimmed, lower case. */
  email: string;
  /** `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>` (see src/accounts/passwords.ts). */
  password_hash: string;
  created_at: Timestamp;
  /** Made before account changes were audited (migration 0019): no change in the log to hold it to. */
  predates_audit: ColumnType<boolean, never, never>;
}

/** A signed-in dashboard session; the token itself is only in the user's cookie. */
export interface DashboardSessionTable {
  id: string;
  token_hash: string;
  user_id: string;
  /** The synchronizer token every state-changing request of the session must carry. */
  csrf_token: string;
  created_at: Timestamp;
  last_seen_at: Timestamp;
}

/** Sign-in attempts per subject in the current window (see DatabaseAttemptLimiter). */
export interface AttemptWindowTable {
  subject: string;
  attempts: number;
  ends_at: Timestamp;
}

export interface DatabaseSchema {
  accounts: AccountTable;
  api_keys: ApiKeyTable;
  usage_counters: UsageCounterTable;
  key_usage_counters: KeyUsageCounterTable;
  audit_log: AuditLogTable;
  audit_chain_heads: AuditChainHeadTable;
  list_snapshots: ListSnapshotTable;
  list_snapshot_chunks: ListSnapshotChunkTable;
  list_states: ListStateTable;
  screenings: ScreeningTable;
  decisions: DecisionTable;
  monitors: MonitorTable;
  monitor_flags: MonitorFlagTable;
  list_changes: ListChangeTable;
  monitor_imports: MonitorImportTable;
  alerts: AlertTable;
  webhooks: WebhookTable;
  webhook_events: WebhookEventTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
  batches: BatchTable;
  batch_items: BatchItemTable;
  users: UserTable;
  dashboard_sessions: DashboardSessionTable;
  attempt_windows: AttemptWindowTable;
}

export type AccountRow = Selectable<AccountTable>;
export type ApiKeyRow = Selectable<ApiKeyTable>;
export type AuditLogRow = Selectable<AuditLogTable>;
export type UserRow = Selectable<UserTable>;
export type ListStateRow = Selectable<ListStateTable>;
