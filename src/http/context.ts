import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { AccountService } from '../accounts/account-service.js';
import type { DashboardSessions } from '../accounts/dashboard-sessions.js';
import type { KeyAuthenticator } from '../accounts/key-authenticator.js';
import type { LastUsedRecorder } from '../accounts/last-used.js';
import type { UsageLedger } from '../accounts/usage-ledger.js';
import type { UserService } from '../accounts/users.js';
import type { AuditWriter } from '../audit/audit-writer.js';
import type { Clock } from '../clock.js';
import type { HealthReport } from '../health.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { BatchService } from '../screening/batches/batch-service.js';
import type { DecisionService } from '../screening/decisions/decision-service.js';
import type { MonitorService } from '../screening/monitoring/monitor-service.js';
import type { ScreeningService } from '../screening/screening-service.js';
import type { ListService } from '../sources/lists/list-service.js';
import type { SearchableIndex } from '../sources/lists/list-source.js';
import type { Db } from '../store/database.js';
import type { RequestRateLimiter } from '../store/rate-limiter.js';
import type { WebhookService } from '../webhooks/webhook-service.js';

/** Everything the HTTP layer needs, built once per process by the runtime (or per test). */
export interface AppContext {
  db: Db;
  clock: Clock;
  accounts: AccountService;
  keys: KeyAuthenticator;
  lastUsed: LastUsedRecorder;
  /** Monthly screening counts: quota checks and `GET /v1/usage`. */
  usage: UsageLedger;
  rateLimiter: RequestRateLimiter;
  audit: AuditWriter;
  adminToken: string;
  /** Dashboard users (created by operators and the first-start bootstrap). */
  users: UserService;
  /** Dashboard sign-in, sessions and their CSRF tokens. */
  dashboardSessions: DashboardSessions;
  /** The official sanctions lists: versions in memory, refresh, status. */
  lists: ListService<SearchableIndex>;
  /** Screening: POST /v1/screen and GET /v1/screen/:id. */
  screening: ScreeningService;
  /** Batch screening: submission, progress and results, cancellation (the items are a worker's). */
  batches: BatchService;
  /** Analysts' decisions on flags: taken, listed, withdrawn (screenings apply them). */
  decisions: DecisionService;
  /** Ongoing monitoring: monitors and the alerts list changes raise on them. */
  monitors: MonitorService;
  /** Webhooks: registration, list, deletion and the delivery log (delivery itself is a worker). */
  webhooks: WebhookService;
  checkHealth(): Promise<HealthReport>;
  /** Prometheus metrics of this process (`GET /metrics`). */
  metrics: ServiceMetrics;
}

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
