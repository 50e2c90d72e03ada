/**
 * Ongoing monitoring at scale: how long a list change takes to screen the live monitors, and
 * whether it raises every alert it should, exactly once. The target: 1,000,000 monitors on
 * PostgreSQL, a new OFAC SDN version that adds 1,000 records, every planted subject alerted, no
 * duplicate, the run done in ≤ 120 s with the service's memory ≤ 1.5 GB, and live screenings
 * answered meanwhile. Also how the run time grows with the delta and with the monitors, and the
 * same on the embedded database (100,000 monitors by default).
 *
 * Monitors are rows written straight into `monitors` (creating them through the API would screen
 * and count each one), with the subject key, normalised name and query type computed by the
 * service's own functions, as `POST /v1/monitors` stores them. They are the synthetic innocent
 * parties of negatives_dev.csv multiplied with variations (middle names, initials, reordered names,
 * suffixes, other birth dates and countries), plus one planted subject per person or entity record
 * of each change, named as a customer would type the record's primary name.
 *
 * Each change is a new version of OFAC SDN (legacy CSV) in a temporary LISTS_DIR, refreshed through
 * `POST /admin/v1/lists/ofac_sdn/refresh`: deltas up to ADD_MAX records are records the first
 * version lacked (added), larger ones change the Remarks of that many records already listed.
 * Every list the service loads by default (LISTS_ENABLED unset) is loaded from LISTS_DIR, so that
 * live screenings weigh what they weigh in production.
 *
 *   npm run bench:monitoring                              # MONITORS=10000,100000,1000000 DELTAS=10,100,1000,10000
 *   MONITORS=20000 DELTAS=100 npm run bench:monitoring    # a quick run
 *
 * DATABASE_URL set: PostgreSQL (a schema of its own, dropped at the end); SETUPS=embedded,postgres
 * chooses (embedded only without DATABASE_URL). EMBEDDED_MONITORS sizes the embedded setup
 * (10000,100000 by default; MONITORS applies to both when given).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { CompiledQuery, type Kysely } from 'kysely';
import { PLANS } from '../src/accounts/plans.js';
import { systemClock } from '../src/clock.js';
import { listDelta } from '../src/screening/monitoring/list-delta.js';
import { MonitorSift, siftSubject } from '../src/screening/monitoring/monitor-sift.js';
import { monitorsFlaggedFor, runMonitorsPage } from '../src/screening/monitoring/monitor-store.js';
import { MONITOR_RUN_PAGE } from '../src/screening/monitoring/monitoring-policy.js';
import { resolveScreeningRequest, type ScreeningRequest } from '../src/screening/screening-request.js';
import { subjectKey } from '../src/screening/screening-subject.js';
import { ListSnapshotStore } from '../src/sources/lists/snapshot-store.js';
import type { Source } from '../src/sources/source.js';
import { type Db, openDatabase } from '../src/store/database.js';
import { createSchema } from '../test/support/postgres-schema.js';
import { benchListsDir } from './matching/list-names.js';
import { seededRandom } from './matching/queries.js';
import { type ProbeFigures, startProbe } from './support/interactive-probe.js';
import { processesCpuMs, threadCpuMs } from './support/proc-cpu.js';
import { machineLine, writeBenchmarkSection } from './support/report.js';
import { apiCall, type RunningService, startService, waitUntilHealthy } from './support/service.js';

const LISTS_DIR = benchListsDir('bench:monitoring');
const sizes = (raw: string) =>
  raw
    .split(',')
    .map((s) => Number(s.trim().replaceAll('_', '')))
    .filter((n) => Number.isInteger(n) && n > 0)
    .sort((a, b) => a - b);
const POSTGRES_MONITORS = sizes(process.env.MONITORS ?? '10000,100000,1000000');
const EMBEDDED_MONITORS = sizes(process.env.MONITORS ?? process.env.EMBEDDED_MONITORS ?? '10000,100000');
const DELTAS = sizes(process.env.DELTAS ?? '10,100,1000,10000');
/** The delta of the main figure (at the largest number of monitors). */
const MAIN_DELTA = Number(process.env.MAIN_DELTA ?? 1000);
/** Deltas up to this many records are additions; larger ones change records already listed. */
const ADD_MAX = Number(process.env.ADD_MAX ?? 1000);
const NEGATIVES = process.env.NEGATIVES_CSV ?? path.join(LISTS_DIR, '..', 'matching', 'negatives_dev.csv');
/** Targets of the issue. */
const TARGET_SECONDS = 120;
const TARGET_RSS_MB = 1536;
/** Live screenings of another account during a run: one every this long. */
const PROBE_INTERVAL_MS = 250;
const INSERT_BATCH = 10_000;
/** Planted subjects per change at most: a larger change gets them for a sample of its records. */
const PLANTED_PER_RUN = Number(process.env.PLANTED_PER_RUN ?? 1000);
/**
 * A run not done after this long is reported unfinished, with how far it went (the share of the
 * monitors its saved cursor passed), and the setup's remaining runs are skipped.
 */
/**
 * BREAKDOWN=1: after each run on PostgreSQL, the bench replays the run's steps but the screenings
 * in its own process, with the service's own functions, and times each: the delta and its index,
 * reading the pages of monitors, looking up their known flags, sifting them.
 */
const BREAKDOWN = process.env.BREAKDOWN === '1';
const RUN_TIMEOUT_SECONDS = Number(process.env.RUN_TIMEOUT_SECONDS ?? 900);
const SDN = 'ofac_sdn';

// ---------------------------------------------------------------------------------------------
// OFAC SDN versions

type Row = string[];

function readCsv(file: string): Row[] {
  let buffer = fs.readFileSync(file);
  if (file.endsWith('.gz')) buffer = gunzipSync(buffer);
  const text = buffer.toString('utf8').replaceAll(String.fromCharCode(0x1a), '');
  return parse(text, { relax_column_count: true, relax_quotes: true, skip_empty_lines: true });
}

/** A file of the path, case-insensitively, maybe gzip-compressed (as the mirror folder holds it). */
function findListFile(dir: string, name: string): string {
  const wanted = name.toLowerCase();
  const found = fs
    .readdirSync(dir)
    .find((f) => f.toLowerCase() === wanted || f.toLowerCase() === `${wanted}.gz`);
  if (!found) throw new Error(`${name} is not in ${dir}`);
  return path.join(dir, found);
}

const quote = (field: string) => `"${field.replaceAll('"', '""')}"`;
const csv = (rows: readonly Row[]) => `${rows.map((r) => r.map(quote).join(',')).join('\r\n')}\r\n`;
const isNull = (value: string | undefined) => value === undefined || /^-0-\s*$/.test(value);

interface SdnRecord {
  entNum: string;
  type: 'person' | 'entity' | 'other';
  /** The primary name as a customer would type it: "SURNAME, Given" as "Given Surname". */
  typed: string;
}

/** The SDN files, and the version written from them: records left out, records whose Remarks changed. */
class SdnVersions {
  readonly records: SdnRecord[];
  readonly excluded = new Set<string>();
  private readonly marks = new Map<string, number>();
  private readonly files: Record<'SDN.CSV' | 'ALT.CSV' | 'ADD.CSV' | 'SDN_COMMENTS.CSV', Row[]>;

  constructor(source: string) {
    this.files = {
      'SDN.CSV': readCsv(findListFile(source, 'sdn.csv')),
      'ALT.CSV': readCsv(findListFile(source, 'alt.csv')),
      'ADD.CSV': readCsv(findListFile(source, 'add.csv')),
      'SDN_COMMENTS.CSV': readCsv(findListFile(source, 'sdn_comments.csv')),
    };
    this.records = this.files['SDN.CSV']
      .filter((row) => row[0] && !isNull(row[1]))
      .map((row) => {
        const type = isNull(row[2]) ? 'entity' : row[2]!.trim() === 'individual' ? 'person' : 'other';
        return { entNum: row[0]!.trim(), type, typed: typedName(row[1]!.trim(), type === 'person') };
      });
  }

  change(entNums: readonly string[]): void {
    for (const entNum of entNums) this.marks.set(entNum, (this.marks.get(entNum) ?? 0) + 1);
  }

  /** Writes the version as the mirror folder holds it. */
  write(dir: string): void {
    const keep = (row: Row) => !this.excluded.has(row[0]?.trim() ?? '');
    const sdn = this.files['SDN.CSV'].filter(keep).map((row) => {
      const mark = this.marks.get(row[0]!.trim());
      if (mark === undefined) return row;
      const remarks = isNull(row[11]) ? '' : `${row[11]!.trim()} `;
      const changed = [...row];
      changed[11] = `${remarks}Bench change ${mark}.`;
      return changed;
    });
    for (const [name, rows] of Object.entries(this.files)) {
      const text = csv(name === 'SDN.CSV' ? sdn : rows.filter(keep));
      fs.rmSync(path.join(dir, name.toLowerCase()), { force: true });
      fs.writeFileSync(path.join(dir, name.toLowerCase()), text);
    }
  }
}

const titleCase = (text: string) =>
  text.toLowerCase().replace(/(^|[\s\-'(])(\p{L})/gu, (_, before, letter) => before + letter.toUpperCase());

function typedName(name: string, person: boolean): string {
  const comma = name.indexOf(',');
  if (!person || comma < 0) return titleCase(name);
  return titleCase(`${name.slice(comma + 1).trim()} ${name.slice(0, comma).trim()}`);
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** A list change a run screens: which records, and whether they come back or change. */
interface ChangePlan {
  monitors: number;
  delta: number;
  kind: 'add' | 'change';
  records: SdnRecord[];
}

/**
 * Every run's records, chosen up front: the additions are left out of the first version (each
 * run's own, never shared), the changes are drawn from the records listed throughout.
 */
function planChanges(sdn: SdnVersions, stages: readonly number[]): ChangePlan[] {
  const random = seededRandom(20261127);
  const screenable = shuffled(
    sdn.records.filter((r) => r.type !== 'other'),
    random,
  );
  const plans: ChangePlan[] = [];
  let next = 0;
  for (const monitors of stages)
    for (const delta of DELTAS)
      if (delta <= ADD_MAX && next + delta <= screenable.length / 2) {
        plans.push({ monitors, delta, kind: 'add', records: screenable.slice(next, next + delta) });
        next += delta;
      } else plans.push({ monitors, delta, kind: 'change', records: [] });
  for (const plan of plans.filter((p) => p.kind === 'add'))
    for (const r of plan.records) sdn.excluded.add(r.entNum);
  // Records listed throughout: person and entity records first (they get planted subjects).
  const listed = [
    ...shuffled(
      screenable.filter((r) => !sdn.excluded.has(r.entNum)),
      random,
    ),
    ...shuffled(
      sdn.records.filter((r) => r.type === 'other'),
      random,
    ),
  ];
  for (const plan of plans)
    if (plan.kind === 'change') {
      const from = Math.floor(random() * listed.length);
      const records = [...listed.slice(from), ...listed.slice(0, from)].slice(0, plan.delta);
      plan.records = records.sort((a, b) => (a.type === 'other' ? 1 : 0) - (b.type === 'other' ? 1 : 0));
    }
  return plans;
}

// ---------------------------------------------------------------------------------------------
// Monitored subjects

interface Negative {
  kind: 'person' | 'company';
  name: string;
  dob: string;
  nationality: string;
}

function loadNegatives(file: string): Negative[] {
  const rows = parse(fs.readFileSync(file, 'utf8'), { columns: true, skip_empty_lines: true }) as Record<
    string,
    string
  >[];
  return rows.map((r) => ({
    kind: r.kind === 'person' ? 'person' : 'company',
    name: r.name!.trim(),
    dob: r.date_of_birth ?? '',
    nationality: r.nationality ?? '',
  }));
}

const SUFFIXES = ['Jr.', 'Sr.', 'II', 'III', 'IV'];
const COMPANY_TAILS = ['Holdings', 'Group', 'International', 'Trading', 'Services', 'Partners'];

/**
 * The i-th innocent subject: a party of negatives_dev.csv, as it is for the first round over the
 * file and varied after that (a middle name, an initial, a reordered name, a suffix or a number;
 * another birth date; another country), so that a million of them are a million customers.
 */
function innocent(negatives: readonly Negative[], i: number): ScreeningRequest {
  const base = negatives[i % negatives.length]!;
  const round = Math.floor(i / negatives.length);
  const other = negatives[(i * 7919 + round * 104729) % negatives.length]!;
  const countries = [base.nationality, other.nationality].filter((c) => /^[A-Z]{2}$/.test(c));
  const reference = `c${i}`;
  if (base.kind === 'company') {
    const tail = COMPANY_TAILS[round % COMPANY_TAILS.length]!;
    const query = round === 0 ? base.name : round % 2 ? `${base.name} ${tail}` : `${base.name} ${round}`;
    return {
      query,
      type: 'entity',
      reference,
      ...(round % 3 === 0 ? {} : { countries: countries.slice(0, 1) }),
    };
  }
  const words = base.name.split(/\s+/);
  const first = words[0]!;
  const last = words.slice(1).join(' ') || first;
  const otherFirst = other.kind === 'person' ? other.name.split(/\s+/)[0]! : 'Lee';
  let query = base.name;
  switch (round % 6) {
    case 1:
      query = `${first} ${otherFirst} ${last}`;
      break;
    case 2:
      query = `${[...first][0]}. ${last}`;
      break;
    case 3:
      query = `${last} ${first}`;
      break;
    case 4:
      query = `${base.name} ${SUFFIXES[Math.floor(round / 6) % SUFFIXES.length]}`;
      break;
    case 5:
      query = `${first} ${[...otherFirst][0]}. ${last}`;
      break;
  }
  const request: ScreeningRequest = { query, type: 'person', reference };
  if (round % 4 !== 3 && /^\d{4}-\d{2}-\d{2}$/.test(base.dob)) {
    const dob = new Date(`${base.dob}T00:00:00Z`);
    dob.setUTCDate(dob.getUTCDate() + round * 37);
    request.date_of_birth = dob.toISOString().slice(0, 10);
  }
  if (round % 5 !== 4 && countries.length > 0) request.countries = countries.slice(0, 1 + (round % 2));
  return request;
}

/** A planted subject: a listed record's primary name, typed as a customer would, as its type. */
function plantedSubject(record: SdnRecord, i: number): ScreeningRequest {
  return { query: record.typed, type: record.type === 'person' ? 'person' : 'entity', reference: `p${i}` };
}

/** Any list stands for the configured sources: what a monitor stores does not depend on them. */
const SOME_SOURCE = { id: SDN, kind: 'direct_feed' } as unknown as Source;

/** The columns `POST /v1/monitors` stores for this request (monitor-service.ts, screening-service.ts). */
function monitorColumns(request: ScreeningRequest, today: string) {
  const resolved = resolveScreeningRequest(request, PLANS.enterprise, [SOME_SOURCE], today);
  return { subjectKey: subjectKey(resolved), entity: resolved.entity, queryType: resolved.type };
}

interface Owner {
  accountId: string;
  keyId: string;
}

/** Inserts monitors as the API stores them, a batch per statement; returns their ids. */
async function insertMonitors(db: Kysely<unknown>, owner: Owner, requests: readonly ScreeningRequest[]) {
  const today = new Date().toISOString().slice(0, 10);
  const ids: string[] = [];
  for (let from = 0; from < requests.length; from += INSERT_BATCH) {
    const batch = requests.slice(from, from + INSERT_BATCH);
    const columns = batch.map((request) => monitorColumns(request, today));
    const batchIds = batch.map(() => crypto.randomUUID());
    ids.push(...batchIds);
    await db.executeQuery(
      CompiledQuery.raw(
        // Made (and first screened) an hour ago: watched, and well before any list change of the run.
        `INSERT INTO monitors (id, account_id, key_id, reference, subject_key, entity, query_type, request, created_at,
           first_screened_at)
         SELECT id, $1::uuid, $2::uuid, reference, subject_key, entity, query_type, request,
           now() - interval '1 hour', now() - interval '1 hour'
         FROM unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::jsonb[])
           AS m(id, reference, subject_key, entity, query_type, request)`,
        [
          owner.accountId,
          owner.keyId,
          batchIds,
          batch.map((r) => r.reference ?? null),
          columns.map((c) => c.subjectKey),
          columns.map((c) => c.entity),
          columns.map((c) => c.queryType),
          batch.map((r) => JSON.stringify(r)),
        ],
      ),
    );
  }
  await db.executeQuery(CompiledQuery.raw('ANALYZE monitors'));
  return ids;
}

// ---------------------------------------------------------------------------------------------
// Measuring a run

const rssMb = (pid: number) => {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
};
const totalCpuMs = (pid: number) => [...threadCpuMs(pid).values()].reduce((a, b) => a + b, 0);

interface PlantedMonitor {
  id: string;
  flagId: string;
}

interface RunFigures {
  setup: string;
  monitors: number;
  delta: number;
  kind: 'add' | 'change';
  version: string;
  seconds: number;
  refreshSeconds: number;
  alerts: number;
  expected: number;
  found: number;
  otherAlerts: number;
  duplicates: number;
  twicePerVersion: number;
  cpuSeconds: number;
  postgresCpuSeconds: number;
  peakRssMb: number;
  probe: ProbeFigures;
  summary: unknown;
  /** Share of the monitors the run went through (1 when done). */
  progress: number;
  /** A few planted subjects not alerted: their name, the record expected, and what they were flagged for. */
  missedExamples: string[];
}

/** The service's log line for the run of this version's change (LOG_LEVEL=info). */
function runDoneLine(service: RunningService, version: string): Record<string, unknown> | undefined {
  for (const line of service.output().split('\n')) {
    if (!line.includes('monitor run done') || !line.includes(version)) continue;
    try {
      return JSON.parse(line);
    } catch {}
  }
  return undefined;
}

interface Setup {
  name: string;
  embedded: boolean;
  env: Record<string, string>;
  /** The service's database from this process (on the embedded database: with the service stopped). */
  open(dataDir: string): Promise<{ db: Kysely<unknown>; close(): Promise<void> }>;
}

/** What a run did, read from the database once it is done. */
async function readOutcome(
  db: Kysely<unknown>,
  version: string,
  plantedFor: readonly PlantedMonitor[],
): Promise<
  Pick<
    RunFigures,
    | 'seconds'
    | 'alerts'
    | 'found'
    | 'otherAlerts'
    | 'duplicates'
    | 'twicePerVersion'
    | 'summary'
    | 'progress'
    | 'missedExamples'
  >
> {
  const q = async <T>(text: string, params: unknown[] = []) =>
    (await db.executeQuery<T>(CompiledQuery.raw(text, params))).rows;
  const [change] = await q<{ seconds: number | null; summary: unknown; progress: number }>(
    `SELECT extract(epoch FROM c.done_at - c.created_at)::float8 AS seconds, c.summary,
       CASE WHEN c.done_at IS NOT NULL THEN 1
         ELSE (SELECT count(*) FILTER (WHERE c.monitor_cursor IS NOT NULL AND m.id <= c.monitor_cursor)::float8
               / greatest(count(*), 1) FROM monitors m WHERE m.deleted_at IS NULL) END AS progress
     FROM list_changes c JOIN list_snapshots s ON s.id = c.snapshot_id
     WHERE c.list_id = $1 AND s.version = $2`,
    [SDN, version],
  );
  const [{ alerts }] = (await q<{ alerts: number }>(
    'SELECT count(*)::int AS alerts FROM alerts WHERE list = $1 AND list_version = $2',
    [SDN, version],
  )) as [{ alerts: number }];
  const [{ found, onPlanted }] = (await q<{ found: number; onPlanted: number }>(
    `SELECT count(*) FILTER (WHERE hit)::int AS found, coalesce(sum(hits), 0)::int AS "onPlanted"
     FROM (SELECT count(a.id) > 0 AS hit, count(a.id) AS hits
           FROM unnest($1::uuid[], $2::text[]) AS p(monitor_id, flag_id)
           LEFT JOIN alerts a ON a.monitor_id = p.monitor_id AND a.flag_id = p.flag_id
             AND a.list = $3 AND a.list_version = $4
           GROUP BY p.monitor_id, p.flag_id) t`,
    [plantedFor.map((p) => p.id), plantedFor.map((p) => p.flagId), SDN, version],
  )) as [{ found: number; onPlanted: number }];
  const [{ duplicates }] = (await q<{ duplicates: number }>(
    `SELECT count(*)::int AS duplicates FROM (SELECT 1 FROM alerts
     GROUP BY monitor_id, flag_id, record_hash, reason HAVING count(*) > 1) d`,
  )) as [{ duplicates: number }];
  const [{ twice }] = (await q<{ twice: number }>(
    `SELECT count(*)::int AS twice FROM (SELECT 1 FROM alerts
     GROUP BY monitor_id, flag_id, record_hash HAVING count(*) > 1) d`,
  )) as [{ twice: number }];
  const missed = await q<{ entity: string; flag_id: string; flags: string | null }>(
    `SELECT m.entity, p.flag_id,
       (SELECT string_agg(f.flag_id || ' ' || f.record_hash, ', ') FROM monitor_flags f
        WHERE f.monitor_id = m.id) AS flags
     FROM unnest($1::uuid[], $2::text[]) AS p(monitor_id, flag_id)
     JOIN monitors m ON m.id = p.monitor_id
     WHERE NOT EXISTS (SELECT 1 FROM alerts a WHERE a.monitor_id = p.monitor_id AND a.flag_id = p.flag_id
       AND a.list = $3 AND a.list_version = $4)
     LIMIT 5`,
    [plantedFor.map((p) => p.id), plantedFor.map((p) => p.flagId), SDN, version],
  );
  return {
    missedExamples: missed.map((m) => `"${m.entity}" expected ${m.flag_id}, knows: ${m.flags ?? 'nothing'}`),
    seconds: change?.seconds ?? Number.NaN,
    progress: change?.progress ?? 0,
    summary: change?.summary ?? null,
    alerts,
    found,
    otherAlerts: alerts - onPlanted,
    duplicates,
    twicePerVersion: twice,
  };
}

async function measureSetup(setup: Setup, stages: readonly number[]): Promise<RunFigures[]> {
  const negatives = loadNegatives(NEGATIVES);
  const sdn = new SdnVersions(LISTS_DIR);
  const plans = planChanges(sdn, stages);
  const listsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'css-bench-monitoring-lists-'));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'css-bench-monitoring-data-'));
  // Every list of LISTS_DIR, OFAC SDN as the versions written here.
  for (const file of fs.readdirSync(LISTS_DIR)) {
    if (/^(sdn|alt|add|sdn_comments)\.csv(\.gz)?$/i.test(file)) continue;
    fs.symlinkSync(path.join(LISTS_DIR, file), path.join(listsDir, file));
  }
  sdn.write(listsDir);
  const env = {
    ...setup.env,
    LISTS_DIR: listsDir,
    // Loaded at start (the first load always happens), then refreshed by this bench only.
    LISTS_REFRESH_INTERVAL_MINUTES: '0',

    LOG_LEVEL: 'info',
    WORKERS: '1',
  };
  let stopped = true;
  const start = async () => {
    const service = await startService(env, { dataDir });
    stopped = false;
    cleanups.add(stopService);
    await waitUntilHealthy(service, 5);
    return service;
  };
  async function stopService() {
    if (stopped) return;
    stopped = true;
    cleanups.delete(stopService);
    await service.stop();
  }
  let service = await start();
  const figures: RunFigures[] = [];
  const pending: {
    plan: ChangePlan;
    version: string;
    planted: PlantedMonitor[];
    partial: Partial<RunFigures>;
  }[] = [];
  try {
    const limits = { plan: 'enterprise', rate_limit_per_minute: 1_000_000 };
    const created = await apiCall(service, service.adminToken, 'POST', '/admin/v1/accounts', {
      name: 'monitoring',
      plan: 'enterprise',
    });
    const owner: Owner = { accountId: created.account.id, keyId: created.key.id };
    const other = await apiCall(service, service.adminToken, 'POST', '/admin/v1/accounts', {
      name: 'interactive',
      plan: 'enterprise',
    });
    await apiCall(service, service.adminToken, 'PATCH', `/admin/v1/accounts/${other.account.id}`, limits);
    const probeKey = other.key.key as string;
    const probeNames = shuffled(
      negatives.map((n) => n.name),
      seededRandom(7),
    );
    let probed = 0;
    // The first versions' changes (every record counts as added) run over no monitor yet.
    const loaded = (await apiCall(service, service.adminToken, 'GET', '/admin/v1/lists')).data.filter(
      (list: { version: string | null }) => list.version !== null,
    ).length;
    const initial = (out: string) => (out.match(/monitor run done/g) ?? []).length >= loaded;
    if (!(await waitForLog(service, initial, 600_000))) throw new Error('the first versions were not run');

    const planted: (PlantedMonitor & { entNum: string })[] = [];
    let inserted = 0;
    let innocents = 0;
    for (const stage of stages) {
      const stagePlans = plans.filter((p) => p.monitors === stage);
      const plants = stagePlans.flatMap((p) =>
        p.records.filter((r) => r.type !== 'other').slice(0, PLANTED_PER_RUN),
      );
      const fillers = Math.max(0, stage - inserted - plants.length);
      const requests = [
        ...Array.from({ length: fillers }, (_, k) => innocent(negatives, innocents + k)),
        ...plants.map((r, k) => plantedSubject(r, planted.length + k)),
      ];
      // Planted subjects among the others (a run reads monitors in id order, and ids are random).
      if (setup.embedded) await stopService();
      const seeding = performance.now();
      const { db, close } = await setup.open(dataDir);
      try {
        const ids = await insertMonitors(db, owner, requests);
        ids.slice(fillers).forEach((id, k) => {
          const record = plants[k]!;
          planted.push({ id, flagId: `${SDN}:${record.entNum}`, entNum: record.entNum });
        });
      } finally {
        await close();
      }
      innocents += fillers;
      inserted += requests.length;
      console.log(
        `${setup.name}: ${inserted} monitors (${planted.length} planted) after ${((performance.now() - seeding) / 1000).toFixed(0)} s of inserting`,
      );
      if (setup.embedded) service = await start();

      for (const plan of stagePlans) {
        const entNums = plan.records.map((r) => r.entNum);
        if (plan.kind === 'add') for (const entNum of entNums) sdn.excluded.delete(entNum);
        else sdn.change(entNums);
        sdn.write(listsDir);
        const targets = new Set(entNums);
        const plantedFor = planted.filter((p) => targets.has(p.entNum));

        const cpuBefore = totalCpuMs(service.pid);
        const postgresBefore = setup.embedded ? 0 : processesCpuMs(/^postgres/);
        let peakRssMb = rssMb(service.pid);
        const sampler = setInterval(() => {
          peakRssMb = Math.max(peakRssMb, rssMb(service.pid));
        }, 200);
        const probe = startProbe(PROBE_INTERVAL_MS, () =>
          fetch(`${service.url}/v1/screen`, {
            method: 'POST',
            headers: { authorization: `Bearer ${probeKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ query: probeNames[probed++ % probeNames.length], type: 'person' }),
          }),
        );
        const started = performance.now();
        const refreshed = await apiCall(
          service,
          service.adminToken,
          'POST',
          `/admin/v1/lists/${SDN}/refresh`,
          {
            force: true,
          },
        );
        const refreshSeconds = (performance.now() - started) / 1000;
        if (refreshed.outcome !== 'accepted') throw new Error(`refresh: ${JSON.stringify(refreshed)}`);
        const version = refreshed.list.version as string;
        const finished = await waitForLog(
          service,
          () => runDoneLine(service, version) !== undefined,
          RUN_TIMEOUT_SECONDS * 1000,
        );
        const probeFigures = await probe.stop();
        clearInterval(sampler);
        const partial: Partial<RunFigures> = {
          setup: setup.name,
          monitors: inserted,
          delta: plan.delta,
          kind: plan.kind,
          version,
          refreshSeconds,
          expected: plantedFor.length,
          cpuSeconds: (totalCpuMs(service.pid) - cpuBefore) / 1000,
          postgresCpuSeconds: setup.embedded ? 0 : (processesCpuMs(/^postgres/) - postgresBefore) / 1000,
          peakRssMb,
          probe: probeFigures,
          ...(finished ? {} : { seconds: (performance.now() - started) / 1000 }),
        };
        console.log(
          `${setup.name}: ${inserted} monitors, delta ${plan.delta} (${plan.kind}) done in ${((performance.now() - started) / 1000).toFixed(1)} s (client)`,
          JSON.stringify(runDoneLine(service, version)),
        );
        pending.push({ plan, version, planted: plantedFor, partial });
        if (!finished) {
          console.log(
            `${setup.name}: the run is not done after ${RUN_TIMEOUT_SECONDS} s; the setup stops here`,
          );
          await stopService();
          figures.push(...(await settle(setup, pending)));
          return figures;
        }
        // On PostgreSQL the figures are read at once; the embedded database only with the service stopped.
        if (!setup.embedded) figures.push(...(await settle(setup, pending)));
      }
      if (setup.embedded) {
        await stopService();
        figures.push(...(await settle(setup, pending)));
        service = await start();
      }
    }
  } finally {
    await stopService();
    fs.rmSync(listsDir, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return figures;

  async function settle(
    setup: Setup,
    runs: { version: string; planted: PlantedMonitor[]; partial: Partial<RunFigures> }[],
  ): Promise<RunFigures[]> {
    const { db, close } = await setup.open(dataDir);
    try {
      const out: RunFigures[] = [];
      for (const run of runs.splice(0)) {
        const outcome = await readOutcome(db, run.version, run.planted);
        // An unfinished run keeps the time the bench waited.
        const figures = {
          ...run.partial,
          ...outcome,
          seconds: outcome.progress < 1 ? (run.partial.seconds ?? Number.NaN) : outcome.seconds,
        } as RunFigures;
        printRun(figures);
        if (BREAKDOWN && !setup.embedded && outcome.progress === 1)
          console.log(`  ${await replayRun(db as unknown as Db, run.version)}`);
        out.push(figures);
      }
      return out;
    } finally {
      await close();
    }
  }
}

/** The run of this version replayed without its screenings (see BREAKDOWN), each step timed. */
async function replayRun(db: Db, version: string): Promise<string> {
  const t = () => performance.now();
  const change = await db
    .selectFrom('list_changes')
    .innerJoin('list_snapshots', 'list_snapshots.id', 'list_changes.snapshot_id')
    .select(['list_changes.snapshot_id', 'list_changes.previous_snapshot_id'])
    .where('list_snapshots.version', '=', version)
    .executeTakeFirstOrThrow();
  let started = t();
  const snapshots = new ListSnapshotStore(db, systemClock);
  const current = (await snapshots.loadSnapshot(change.snapshot_id))!;
  const previous = change.previous_snapshot_id
    ? await snapshots.loadSnapshot(change.previous_snapshot_id)
    : undefined;
  const delta = listDelta(previous?.chunks, current.chunks);
  const deltaMs = t() - started;
  started = t();
  const sift = new MonitorSift(SDN, delta.changed);
  const indexMs = t() - started;
  const deltaIds = new Set([...delta.changed.map((r) => r.flagId), ...delta.removed.map((r) => r.flagId)]);
  let readMs = 0;
  let knownMs = 0;
  let siftMs = 0;
  let pages = 0;
  let monitors = 0;
  let passed = 0;
  let cursor: string | null = null;
  for (;;) {
    started = t();
    const page = await runMonitorsPage(db, cursor, MONITOR_RUN_PAGE);
    readMs += t() - started;
    if (page.length === 0) break;
    pages++;
    monitors += page.length;
    started = t();
    const known = await monitorsFlaggedFor(
      db,
      page.map((m) => m.id),
      deltaIds,
    );
    knownMs += t() - started;
    started = t();
    for (const monitor of page) if (known.has(monitor.id) || sift.mayMatch(siftSubject(monitor))) passed++;
    siftMs += t() - started;
    cursor = page.at(-1)!.id;
  }
  const s = (ms: number) => (ms / 1000).toFixed(1);
  return `replayed without screenings: delta ${s(deltaMs)} s (${delta.changed.length} changed), index ${s(indexMs)} s, ${pages} pages read ${s(readMs)} s, known flags ${s(knownMs)} s, sift ${s(siftMs)} s (${(siftMs / Math.max(1, monitors)).toFixed(3)} ms/monitor), ${passed} of ${monitors} monitors passed to full screening`;
}

async function waitForLog(service: RunningService, done: (output: string) => boolean, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (!done(service.output())) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return true;
}

/** Backends that end meanwhile take their CPU time with them: a negative sum is no figure. */
const pgCpu = (f: RunFigures) =>
  f.setup === 'embedded' ? '-' : f.postgresCpuSeconds < 0 ? 'n/a' : f.postgresCpuSeconds.toFixed(1);
const runTime = (f: RunFigures) =>
  f.progress < 1
    ? `> ${f.seconds.toFixed(0)} (${(f.progress * 100).toFixed(1)}% done)`
    : f.seconds.toFixed(1);

function printRun(f: RunFigures): void {
  const missed = f.expected - f.found;
  const misses = [
    f.progress < 1
      ? `not done after ${f.seconds.toFixed(0)} s (${(f.progress * 100).toFixed(1)}% of the monitors)`
      : '',
    f.seconds > TARGET_SECONDS ? `run time over ${TARGET_SECONDS} s` : '',
    f.peakRssMb > TARGET_RSS_MB ? `RSS over ${TARGET_RSS_MB} MB` : '',
    missed > 0 ? `${missed} expected alerts missed` : '',
    f.duplicates + f.twicePerVersion > 0 ? 'duplicates' : '',
  ].filter(Boolean);
  console.log(
    `${f.setup} | ${f.monitors} monitors | delta ${f.delta} (${f.kind}): run ${runTime(f)} s (refresh call ${f.refreshSeconds.toFixed(1)} s), alerts ${f.alerts}, expected found ${f.found}/${f.expected} (missed ${missed}), other alerts ${f.otherAlerts}, duplicates ${f.duplicates} (same record version twice: ${f.twicePerVersion}), service CPU ${f.cpuSeconds.toFixed(1)} s, postgres CPU ${pgCpu(f)} s, peak RSS ${f.peakRssMb.toFixed(0)} MB, live screening p50/p99 ${f.probe.p50.toFixed(0)}/${f.probe.p99.toFixed(0)} ms (${f.probe.count} sent, ${f.probe.errors} errors)`,
  );
  console.log(`  summary: ${JSON.stringify(f.summary)}`);
  if (misses.length > 0) console.log(`  TARGET MISSED: ${misses.join(', ')}`);
  for (const example of f.missedExamples) console.log(`  missed: ${example}`);
}

// ---------------------------------------------------------------------------------------------

/** What an interrupted bench must undo: its service stopped, its schema dropped. */
const cleanups = new Set<() => Promise<void>>();
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, async () => {
    for (const cleanup of [...cleanups].reverse()) await cleanup().catch(() => {});
    process.exit(130);
  });

const setups = (process.env.SETUPS ?? 'embedded,postgres').split(',');
const rows: RunFigures[] = [];
let dropSchema: (() => Promise<void>) | undefined;
try {
  if (setups.includes('postgres') && process.env.DATABASE_URL) {
    const schema = await createSchema(
      process.env.DATABASE_URL,
      `bench_monitoring_${Date.now().toString(36)}`,
    );
    dropSchema = schema.drop;
    cleanups.add(schema.drop);
    const env: Record<string, string> = { DATABASE_URL: schema.url };
    if (process.env.REDIS_URL) env.REDIS_URL = process.env.REDIS_URL;
    rows.push(
      ...(await measureSetup(
        {
          name: 'PostgreSQL',
          embedded: false,
          env,
          open: async () => {
            const { db, close } = await openDatabase({ databaseUrl: schema.url, poolSize: 2 });
            return { db: db as unknown as Kysely<unknown>, close };
          },
        },
        POSTGRES_MONITORS,
      )),
    );
  }
} finally {
  await dropSchema?.();
}
if (setups.includes('embedded')) {
  rows.push(
    ...(await measureSetup(
      {
        name: 'embedded',
        embedded: true,
        env: {},
        open: async (dataDir) => {
          const { db, close } = await openDatabase({ dataDir, poolSize: 1 });
          return { db: db as unknown as Kysely<unknown>, close };
        },
      },
      EMBEDDED_MONITORS,
    )),
  );
}

const cell = (f: RunFigures) =>
  `| ${f.setup} | ${f.monitors.toLocaleString('en')} | ${f.delta} ${f.kind === 'add' ? 'added' : 'changed'} | ${runTime(f)} | ${f.alerts} | ${f.found} / ${f.expected} | ${f.otherAlerts} | ${f.duplicates + f.twicePerVersion} | ${f.cpuSeconds.toFixed(1)} | ${pgCpu(f)} | ${f.peakRssMb.toFixed(0)} | ${f.probe.p50.toFixed(0)} / ${f.probe.p99.toFixed(0)} |`;
const main = rows.filter((f) => f.delta === MAIN_DELTA).sort((a, b) => b.monitors - a.monitors);
writeBenchmarkSection(
  'monitoring',
  `## Ongoing monitoring (\`npm run bench:monitoring\`)

A new OFAC SDN version (legacy CSV in a temporary \`LISTS_DIR\`, every other list of \`$LISTS_DIR\`
loaded too) refreshed through \`POST /admin/v1/lists/ofac_sdn/refresh\` while the monitors of
one Enterprise account are live: synthetic innocent parties (negatives_dev.csv, varied) and one
planted subject per person or entity record of the change (its primary name as typed by a
customer). Deltas up to ${ADD_MAX} records are added records, larger ones changed Remarks. Run time:
the \`list_changes\` row's \`created_at\` to its \`done_at\`. "found" counts planted monitors with an
alert for their record in the new version; "dup" counts alerts repeated per monitor, record
version and reason, or per monitor and record version. CPU: the service process (one worker), and
every \`postgres\` process of the machine meanwhile. Live screenings: another account, one every
${PROBE_INTERVAL_MS} ms during the run, p50 / p99 in ms.
Target (${MAIN_DELTA} records, 1,000,000 monitors on PostgreSQL): ≤ ${TARGET_SECONDS} s, RSS ≤ ${TARGET_RSS_MB} MB, every planted subject alerted, no duplicate.

| setup | monitors | delta | run s | alerts | found / expected | other alerts | dup | service CPU s | postgres CPU s | peak RSS MB | live p50 / p99 |
|---|---|---|---|---|---|---|---|---|---|---|---|
${rows.map(cell).join('\n')}

${main.map((f) => `${f.setup}, ${f.monitors.toLocaleString('en')} monitors, ${MAIN_DELTA} records: summary \`${JSON.stringify(f.summary)}\`.`).join('\n')}

${machineLine()}, ${os.availableParallelism()} cores shared with PostgreSQL.`,
);
