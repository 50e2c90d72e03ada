import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { AccountService } from './accounts/account-service.js';
import { bootstrapDefaultAccount, type DefaultAccount, resolveAdminToken } from './accounts/bootstrap.js';
import {
  DashboardSessions,
  ExpiredSessionPurge,
  SIGN_IN_ATTEMPTS_PER_IP_MAX,
  SIGN_IN_ATTEMPTS_PER_IP_WINDOW_SECONDS,
  SIGN_IN_FAILURE_WINDOW_SECONDS,
  SIGN_IN_FAILURES_MAX,
} from './accounts/dashboard-sessions.js';
import { KeyAuthenticator } from './accounts/key-authenticator.js';
import { LastUsedRecorder } from './accounts/last-used.js';
import { UsageLedger } from './accounts/usage-ledger.js';
import { UserService } from './accounts/users.js';
import { AuditCheckpointer, type CheckpointSettings } from './audit/audit-checkpointer.js';
import { AuditWriter } from './audit/audit-writer.js';
import { recordChanges } from './audit/audited-change.js';
import { type Clock, systemClock } from './clock.js';
import { type Config, openSanctionsMode } from './config.js';
import { checkHealth } from './health.js';
import type { AppContext } from './http/context.js';
import { PROBLEMS } from './http/problems.js';
import { readQueueDepths } from './metrics/queue-depths.js';
import { ServiceMetrics } from './metrics/service-metrics.js';
import { registerStateGauges } from './metrics/state-gauges.js';
import { releaseDeadClaims } from './screening/batches/batch-queue.js';
import { BatchService } from './screening/batches/batch-service.js';
import { BatchWorker } from './screening/batches/batch-worker.js';
import { DecidedSubjects } from './screening/decisions/decided-subjects.js';
import { DecisionService } from './screening/decisions/decision-service.js';
import { AbandonedImportWorker } from './screening/monitoring/abandoned-import-worker.js';
import { abandonDeadImports } from './screening/monitoring/abandoned-imports.js';
import { FirstScreeningWorker } from './screening/monitoring/first-screening-worker.js';
import { releaseChangeClaims } from './screening/monitoring/list-change-queue.js';
import { releaseFirstScreeningClaims } from './screening/monitoring/monitor-import-queue.js';
import { MonitorRunWorker } from './screening/monitoring/monitor-run-worker.js';
import { MonitorService } from './screening/monitoring/monitor-service.js';
import { RetentionPurge } from './screening/retention-purge.js';
import { ScreeningService } from './screening/screening-service.js';
import { ScreeningWebhooks } from './screening/screening-webhooks.js';
import { type ListSettings, listSettingsFromConfig, providerSettingsFromConfig } from './source-settings.js';
import { MatchingThread, type ThreadIndex } from './sources/list-matching/matching-thread.js';
import { ListHeadStart } from './sources/lists/list-head-start.js';
import { ListService } from './sources/lists/list-service.js';
import { ListSource } from './sources/lists/list-source.js';
import { ListSnapshotStore } from './sources/lists/snapshot-store.js';
import type { ProviderSettings } from './sources/providers/provider-settings.js';
import { buildProviderSources } from './sources/providers/providers.js';
import type { Source } from './sources/source.js';
import type { AttemptLimiter } from './store/attempt-limiter.js';
import { type Broadcast, LocalBroadcast, RedisBroadcast } from './store/broadcast.js';
import {
  type Database,
  type Db,
  type EmbeddedImage,
  embeddedDatabaseCreated,
  openDatabase,
} from './store/database.js';
import { DatabaseAttemptLimiter, EndedAttemptWindowPurge } from './store/database-attempt-limiter.js';
import { shippedEmbeddedImage } from './store/embedded-image.js';
import { RequestRateLimiter } from './store/rate-limiter.js';
import { connectRedis, waitUntilReady } from './store/redis.js';
import { RedisCircuit } from './store/redis-circuit.js';
import { MemoryResultCache, RedisResultCache } from './store/result-cache.js';
import { DeliveryHistoryPurge } from './webhooks/delivery-history-purge.js';
import {
  DeliveryThread,
  type DeliveryThreadSettings,
  type WebhookDelivery,
} from './webhooks/delivery-thread.js';
import { DeliveryWorker } from './webhooks/delivery-worker.js';
import { EndpointGuard, type EndpointPolicy } from './webhooks/endpoint-guard.js';
import { SecretBox } from './webhooks/secret-box.js';
import { loadOrCreateSecretKey } from './webhooks/secret-key.js';
import { WebhookSender } from './webhooks/webhook-sender.js';
import { WebhookService } from './webhooks/webhook-service.js';
import { WebhookSubscriptions } from './webhooks/webhook-subscriptions.js';

/** How long start-up waits for Redis before going on without it (it keeps reconnecting). */
export const REDIS_STARTUP_WAIT_MS = 3_000;

export interface RuntimeOptions {
  config: Config;
  logger: FastifyBaseLogger;
  clock?: Clock;
  /** Tests: keep the embedded database in memory instead of `DATA_DIR`. */
  inMemoryDatabase?: boolean;
  /**
   * A new embedded database starts from this image (see `embeddedDatabaseImage`); by default, the
   * one the build wrote (`shippedEmbeddedImage`), if any.
   */
  embeddedDatabaseImage?: EmbeddedImage;
  /** Prefix of every Redis key and channel, so that test runs sharing a Redis do not meet. */
  redisKeyPrefix?: string;
  /** Create the `default` account on an empty database (the server does; tests do not). */
  bootstrap?: boolean;
}

export interface Runtime {
  ctx: AppContext;
  database: Database;
  redis: Redis | undefined;
  adminTokenFile: string | undefined;
  defaultAccount: DefaultAccount | undefined;
  /** Sends webhook deliveries; tests call `settle()` on it after moving the clock. */
  webhookDelivery: WebhookDelivery;
  /** Screens batch items; tests call `settle()` on it. */
  batchWork: BatchWorker;
  /** Runs the list changes against the monitors; tests call `settle()` on it. */
  monitorRuns: MonitorRunWorker;
  /** Does imported monitors' first screenings; tests call `settle()` on it. */
  firstScreenings: FirstScreeningWorker;
  /** Deletes the hidden monitors of imports given up while staged; tests call `settle()` on it. */
  abandonedImports: AbandonedImportWorker;
  /** Writes signed audit checkpoints when configured; tests call `run()` on it. */
  auditCheckpoints: AuditCheckpointer | undefined;
  /** Flushes pending writes, then closes Redis and the database. */
  close(): Promise<void>;
}

/** Screenings are kept this long unless SCREENING_RETENTION_MONTHS says otherwise. */
export const DEFAULT_RETENTION_MONTHS = 24;

export interface ServiceDeps {
  db: Db;
  redis: Redis | undefined;
  clock: Clock;
  logger: FastifyBaseLogger;
  adminToken: string;
  redisKeyPrefix: string;
  databaseKind?: Database['kind'];
  /** The official lists; without it none is loaded (tests of other parts). */
  lists?: ListSettings;
  screeningRetentionMonths?: number;
  /** Webhook settings; without them webhooks reach public https endpoints only and cannot be created. */
  webhooks?: WebhookSettings;
  /** The remote providers; without them none is queried (tests of other parts). */
  providers?: ProviderSettings;
  /** Deliveries are sent from a thread of their own with these settings (PostgreSQL, real time). */
  deliveryThread?: DeliveryThreadSettings;
  /** Signed checkpoints of the audit chain heads; without them none are written. */
  auditCheckpoints?: CheckpointSettings;
}

export interface WebhookSettings {
  policy: EndpointPolicy;
  /** The key sealing webhook secrets, obtained when first needed (see `loadOrCreateSecretKey`). */
  secretKey: () => Buffer;
}

const NO_WEBHOOK_SETTINGS: WebhookSettings = {
  policy: { allowPrivateNetworks: false, allowHttp: false },
  secretKey: () => {
    throw new Error('no key to seal webhook secrets with was configured');
  },
};

export interface Services {
  ctx: AppContext;
  webhookDelivery: WebhookDelivery;
  batchWork: BatchWorker;
  monitorRuns: MonitorRunWorker;
  firstScreenings: FirstScreeningWorker;
  abandonedImports: AbandonedImportWorker;
  auditCheckpoints: AuditCheckpointer | undefined;
  /** Writes what is buffered (audit rows, last-used times) and stops listening for broadcasts. */
  close(): Promise<void>;
}

const NO_LISTS: ListSettings = {
  enabled: [],
  refreshIntervalMinutes: 0,
  downloadTimeoutMs: 1,
  maxDownloadBytes: 1,
};

/** Builds every service the HTTP layer needs on top of opened stores. */
export async function assembleServices(deps: ServiceDeps): Promise<Services> {
  const { db, redis, clock, logger } = deps;
  // Shared by everything that sends Redis commands on a request's path, so that a hung Redis is
  // waited for by the first requests only.
  const circuit = redis ? new RedisCircuit(redis) : undefined;
  const metrics = new ServiceMetrics();
  const broadcast: Broadcast = redis
    ? new RedisBroadcast(redis, deps.redisKeyPrefix)
    : new LocalBroadcast(deps.databaseKind === 'pglite');
  const keys = new KeyAuthenticator(db, broadcast, clock);
  await keys.start();
  const lastUsed = new LastUsedRecorder(db, clock, (error) =>
    logger.warn({ err: error }, 'last_used_at write failed'),
  );
  const audit = new AuditWriter(db, (error) =>
    logger.error({ err: error }, 'audit write failed; will retry'),
  );
  const checkpoints = deps.auditCheckpoints
    ? new AuditCheckpointer(db, clock, logger, deps.auditCheckpoints)
    : undefined;
  await checkpoints?.start();
  // The lists' indexes are built and searched in a thread of their own (started with the first list).
  const matching = new MatchingThread();
  const lists = new ListService<ThreadIndex>({
    db,
    databaseKind: deps.databaseKind ?? 'postgres',
    clock,
    logger,
    ...(deps.lists ?? NO_LISTS),
    indexer: matching,
  });
  // The stored list versions load in the background, then what is due is refreshed.
  lists.start();
  const retentionMonths = deps.screeningRetentionMonths ?? DEFAULT_RETENTION_MONTHS;
  const webhookSettings = deps.webhooks ?? NO_WEBHOOK_SETTINGS;
  const guard = new EndpointGuard(webhookSettings.policy);
  const secrets = new SecretBox(webhookSettings.secretKey);
  const onAttempt = (ok: boolean) => metrics.webhookAttempted(ok);
  const webhookDelivery: WebhookDelivery = deps.deliveryThread
    ? new DeliveryThread(deps.deliveryThread, logger, onAttempt)
    : new DeliveryWorker({ db, clock, logger, secrets, sender: new WebhookSender(guard), onAttempt });
  const webhookHistory = new DeliveryHistoryPurge(db, clock, logger);
  // The embedded database has one writer, this process (its folder is locked); PostgreSQL may have
  // several instances. Usage counts and webhook subscriptions are remembered accordingly.
  const soleWriter = deps.databaseKind === 'pglite';
  const subscriptions = new WebhookSubscriptions(db, soleWriter);
  const usage = new UsageLedger(db, clock, soleWriter);
  const decided = new DecidedSubjects(db, soleWriter);
  // One source object per list for the life of the process (it holds no state but its id).
  const listSources = new Map<string, ListSource>();
  const listSource = (id: string) => {
    const known = listSources.get(id);
    if (known) return known;
    const source = new ListSource(id, lists);
    listSources.set(id, source);
    return source;
  };
  const officialLists = () => lists.enabledLists().map(listSource);
  // GLEIF screens parents against the authorities' own lists (not OpenSanctions' bulk export, a
  // watchlist), and its cached answers last only as long as those lists' versions.
  const authorityLists = () => officialLists().filter((source) => source.kind === 'direct_feed');
  const providers = deps.providers
    ? buildProviderSources({
        clock,
        settings: deps.providers,
        screenOfficialLists: (query, signal) => screenEvery(authorityLists(), query, signal),
        officialListVersions: () =>
          authorityLists()
            .map((source) => `${source.id}@${source.version() ?? 'not loaded'}`)
            .join(','),
        enabledLists: () => lists.enabledLists(),
      })
    : [];
  const screeningSources = () => [...officialLists(), ...providers];
  const screening = new ScreeningService({
    db,
    clock,
    usage,
    cache: redis ? new RedisResultCache(redis, deps.redisKeyPrefix, circuit) : new MemoryResultCache(),
    sources: screeningSources,
    retentionMonths,
    followUp: new ScreeningWebhooks(clock, subscriptions, () => webhookDelivery.nudge()),
    observer: metrics,
    decided,
  });
  const batchWork = new BatchWorker({
    db,
    clock,
    logger,
    screening,
    audit,
    onBatchClosed: () => webhookDelivery.nudge(),
    statusOf: (code) => PROBLEMS[code].status,
  });
  const inService = () => [...lists.view().lists.values()].map((list) => list.meta.id);
  const monitorRuns = new MonitorRunWorker({
    db,
    clock,
    logger,
    screening,
    snapshots: new ListSnapshotStore(db, clock),
    inService,
    onAlert: () => webhookDelivery.nudge(),
  });
  const firstScreenings = new FirstScreeningWorker({
    db,
    clock,
    logger,
    screening,
    audit,
    statusOf: (code) => PROBLEMS[code].status,
    inService,
    changesReopened: () => monitorRuns.nudge(),
  });
  const abandonedImports = new AbandonedImportWorker({ db, clock, logger });
  const retention = new RetentionPurge(db, clock, retentionMonths, logger);
  retention.start();
  const sessionPurge = new ExpiredSessionPurge(db, clock, logger);
  sessionPurge.start();
  // Sign-in attempts are counted in the database, also with Redis: every instance sees the same
  // count whether Redis answers or not, and a Redis restart erases no lockout. A sign-in needs the
  // database anyway (the user's row), and scrypt costs far more than the counter's upsert.
  const attemptWindowPurge = new EndedAttemptWindowPurge(db, clock, logger);
  attemptWindowPurge.start();
  const attemptLimiter = (name: string, maxAttempts: number, windowSeconds: number): AttemptLimiter =>
    new DatabaseAttemptLimiter(db, clock, name, maxAttempts, windowSeconds);
  webhookDelivery.start();
  if (soleWriter) {
    // This process is the embedded database's only writer: a claim found now is a dead process's,
    // queued again at once rather than after its lease.
    const released = await releaseDeadClaims(db);
    if (released > 0) logger.info({ released }, 'batch items claimed by a previous process queued again');
  }
  if (soleWriter) {
    await releaseChangeClaims(db);
    await releaseFirstScreeningClaims(db);
    // The process that staged these imports is gone: they are given up, and cleaned up below.
    await abandonDeadImports(db, clock.now(), true);
  }
  abandonedImports.start();
  // The work that screens in the background waits for the stored list versions: screened earlier,
  // a batch item or a monitor would be stored missing a list that was only loading.
  // (A loop closed meanwhile, by a shutdown, does not start.)
  void lists.storedVersionsLoaded().then(() => {
    batchWork.start();
    monitorRuns.start();
    firstScreenings.start();
  });
  webhookHistory.start();
  const sourceHealth = () => ({
    ...lists.health(),
    ...Object.fromEntries(providers.map((p) => [p.id, p.health()])),
  });
  registerStateGauges(metrics.registry, {
    clock,
    lists: () => lists.freshness(),
    listRefreshIntervalMinutes: () => lists.refreshIntervalMinutes,
    sourceHealth,
    circuits: () => providers.map((p) => ({ source: p.id, state: p.circuitState() })),
    auditWriter: () => ({ pending: audit.pending, oldestPendingAt: audit.oldestPendingAt }),
    queueDepths: () =>
      readQueueDepths(db, (error) => logger.warn({ err: error }, 'metrics: queue depths not read')),
  });
  const ctx: AppContext = {
    db,
    clock,
    accounts: new AccountService({ db, clock, keys, record: recordChanges }),
    keys,
    lastUsed,
    usage,
    rateLimiter: new RequestRateLimiter(redis, deps.redisKeyPrefix, circuit),
    audit,
    adminToken: deps.adminToken,
    users: new UserService({ db, clock, record: recordChanges }),
    dashboardSessions: new DashboardSessions({
      db,
      clock,
      failures: attemptLimiter('signin:', SIGN_IN_FAILURES_MAX, SIGN_IN_FAILURE_WINDOW_SECONDS),
      attemptsPerClient: attemptLimiter(
        'signin-ip:',
        SIGN_IN_ATTEMPTS_PER_IP_MAX,
        SIGN_IN_ATTEMPTS_PER_IP_WINDOW_SECONDS,
      ),
    }),
    lists,
    screening,
    decisions: new DecisionService({ db, clock, retentionMonths, decided }),
    monitors: new MonitorService({
      db,
      clock,
      screening,
      usage,
      sources: screeningSources,
      imported: () => firstScreenings.nudge(),
      importAbandoned: () => abandonedImports.nudge(),
      inService,
      changesReopened: () => monitorRuns.nudge(),
    }),
    batches: new BatchService({
      db,
      clock,
      usage,
      sources: screeningSources,
      queued: () => batchWork.nudge(),
      eventQueued: () => webhookDelivery.nudge(),
    }),
    webhooks: new WebhookService({ db, clock, guard, secrets, subscriptions }),
    checkHealth: () =>
      checkHealth(db, redis, { health: sourceHealth, publications: () => lists.publications() }),
    metrics,
  };
  return {
    ctx,
    webhookDelivery,
    batchWork,
    monitorRuns,
    firstScreenings,
    abandonedImports,
    auditCheckpoints: checkpoints,
    close: async () => {
      // Bounded: attempts and items in flight get a few seconds, then resume after the restart.
      // Both at once, so that their grace periods fit in the server's shutdown budget together; the
      // items go before the lists they screen against.
      await Promise.all([
        batchWork.close(),
        monitorRuns.close(),
        firstScreenings.close(),
        abandonedImports.close(),
        webhookDelivery.close(),
      ]);
      await Promise.all([
        lists.close(),
        retention.close(),
        sessionPurge.close(),
        webhookHistory.close(),
        attemptWindowPurge.close(),
      ]);
      await matching.close();
      await Promise.all([audit.flush(), lastUsed.flush()]);
      // After the last rows are written, so the final checkpoint covers them.
      await checkpoints?.close();
      await broadcast.close();
      circuit?.close();
    },
  };
}

/** Opens the database and Redis, then builds the services; the server's and the tests' entry. */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { config } = options;
  const listSettings = listSettingsFromConfig(config);
  // A new embedded database has no list version to load: the lists are fetched and parsed meanwhile.
  const newDatabase =
    !config.databaseUrl && (options.inMemoryDatabase || !embeddedDatabaseCreated(config.dataDir));
  const headStart = newDatabase ? new ListHeadStart(listSettings) : undefined;
  try {
    return await openRuntime(options, { ...listSettings, headStart });
  } catch (error) {
    // Nothing will take what it fetches: a start that failed leaves no thread working behind.
    await headStart?.stop();
    throw error;
  }
}

async function openRuntime(options: RuntimeOptions, lists: ListSettings): Promise<Runtime> {
  const { config, logger } = options;
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: options.inMemoryDatabase ? undefined : config.dataDir,
    embeddedImage: options.embeddedDatabaseImage ?? (config.databaseUrl ? undefined : shippedEmbeddedImage()),
    poolSize: config.databasePoolSize,
  });
  const redis = config.redisUrl
    ? connectRedis(config.redisUrl, (error) => logger.warn({ err: error }, 'redis connection problem'))
    : undefined;
  if (redis && !(await waitUntilReady(redis, REDIS_STARTUP_WAIT_MS))) {
    logger.warn('Redis is not reachable; going on with per-instance rate limits until it is');
  }
  const admin = resolveAdminToken(config.adminToken, config.dataDir);
  const services = await assembleServices({
    db: database.db,
    redis,
    clock: options.clock ?? systemClock,
    logger,
    adminToken: admin.token,
    redisKeyPrefix: options.redisKeyPrefix ?? 'css:',
    databaseKind: database.kind,
    lists,
    screeningRetentionMonths: config.screeningRetentionMonths,
    webhooks: webhookSettingsFromConfig(config, logger),
    providers: providerSettingsFromConfig(config, openSanctionsMode(config) === 'api'),
    ...(config.auditCheckpointKey
      ? {
          auditCheckpoints: {
            key: config.auditCheckpointKey,
            file: config.auditCheckpointFile,
            log: config.auditCheckpointLog,
            intervalMs: config.auditCheckpointIntervalSeconds * 1_000,
          },
        }
      : {}),
    // A thread has no way to share a test's fake clock, so tests that move time keep deliveries here.
    ...(config.databaseUrl && !options.clock
      ? { deliveryThread: deliveryThreadSettings(config, config.databaseUrl, logger) }
      : {}),
  });
  const defaultAccount = options.bootstrap
    ? await bootstrapDefaultAccount(database.db, services.ctx.accounts, services.ctx.users)
    : undefined;
  return {
    ctx: services.ctx,
    database,
    redis,
    adminTokenFile: admin.generatedFile,
    defaultAccount,
    webhookDelivery: services.webhookDelivery,
    batchWork: services.batchWork,
    monitorRuns: services.monitorRuns,
    firstScreenings: services.firstScreenings,
    abandonedImports: services.abandonedImports,
    auditCheckpoints: services.auditCheckpoints,
    close: async () => {
      await services.close();
      redis?.disconnect();
      await database.close();
    },
  };
}

/** Flags of every source that answers; one that cannot answer is left out (a parent check is best effort). */
async function screenEvery(
  sources: readonly Source[],
  query: Parameters<Source['screen']>[0],
  signal: AbortSignal,
): Promise<Awaited<ReturnType<Source['screen']>>> {
  const answers = await Promise.allSettled(sources.map((source) => source.screen(query, signal)));
  return answers.flatMap((answer) => (answer.status === 'fulfilled' ? answer.value : []));
}

function endpointPolicy(config: Config): EndpointPolicy {
  return { allowPrivateNetworks: config.webhookAllowPrivateNetworks, allowHttp: config.webhookAllowHttp };
}

function deliveryThreadSettings(
  config: Config,
  databaseUrl: string,
  logger: FastifyBaseLogger,
): DeliveryThreadSettings {
  return {
    databaseUrl,
    secretKey: config.secretKey,
    dataDir: config.dataDir,
    policy: endpointPolicy(config),
    logLevel: logger.level,
  };
}

/** The webhook settings of the configuration; the escape hatches are loud, as they weaken the SSRF guard. */
function webhookSettingsFromConfig(config: Config, logger: FastifyBaseLogger): WebhookSettings {
  if (config.webhookAllowPrivateNetworks) {
    logger.warn(
      'WEBHOOK_ALLOW_PRIVATE_NETWORKS is on: webhooks may reach loopback and private networks (tests and on-premise receivers only)',
    );
  }
  if (config.webhookAllowHttp) {
    logger.warn(
      'WEBHOOK_ALLOW_HTTP is on: webhooks may be sent unencrypted over http:// (tests and on-premise receivers only)',
    );
  }
  if (config.databaseUrl && !config.secretKey) {
    logger.warn(
      'SECRET_KEY is unset: webhook secrets are sealed with a key generated into DATA_DIR; every instance sharing this database needs that same key, so set SECRET_KEY when running several',
    );
  }
  return {
    policy: endpointPolicy(config),
    secretKey: () => loadOrCreateSecretKey(config.secretKey, config.dataDir),
  };
}
