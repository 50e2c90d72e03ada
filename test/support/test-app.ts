import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import type { Account } from '../../src/accounts/accounts.js';
import type { PlanId } from '../../src/accounts/plans.js';
import { type AppOptions, buildApp } from '../../src/app.js';
import type { Clock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import type { App, AppContext } from '../../src/http/context.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import type { Backend } from './backends.js';
import { embeddedImage } from './embedded-image.js';
import { OpenApiContract } from './openapi-contract.js';
import { workerRedisPrefix } from './worker-stores.js';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
  rawBody?: string | Buffer;
}

/** A running instance of the service on 127.0.0.1, spoken to over real HTTP. */
export class TestApp {
  private contract: OpenApiContract;

  private constructor(
    readonly app: App,
    readonly runtime: Runtime,
    readonly baseUrl: string,
  ) {
    this.contract = new OpenApiContract(app.swagger() as never);
  }

  static async start(
    backend: Backend,
    options: {
      clock?: Clock;
      dataDir?: string;
      redisUrl?: string;
      adjust?: (ctx: AppContext) => AppContext;
      /** Extra settings (e.g. LISTS_ENABLED, LISTS_DIR); the official lists are off unless set here. */
      env?: Record<string, string | undefined>;
      /** Keep the database in memory (default) or in `dataDir` (restart tests reuse the folder). */
      inMemoryDatabase?: boolean;
      /** Options of the HTTP app, e.g. `trustProxy` to send X-Forwarded-For/-Proto as a proxy would. */
      app?: AppOptions;
      /** Where the service logs; silent unless a test reads the log. */
      logger?: FastifyBaseLogger;
      /** Serve before the lists' first load is over (default: wait for it). */
      serveWhileListsLoad?: boolean;
    } = {},
  ): Promise<TestApp> {
    const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'css-test-'));
    const config = loadConfig({
      DATABASE_URL: backend.databaseUrl,
      REDIS_URL: options.redisUrl ?? backend.redisUrl,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      DATA_DIR: dataDir,
      DATABASE_POOL_SIZE: '4',
      // Tests never reach the official list addresses: lists load only when a test asks for them.
      LISTS_ENABLED: 'none',
      // The fixtures' publication dates are real and get older every day: a test about a list's
      // age sets its own maximum (LISTS_MAX_AGE_DAYS), the others judge no list by it.
      LISTS_MAX_AGE_DAYS: '0',
      // Nor the remote providers: a provider test points one at a local server it starts.
      GDELT_ENABLED: 'false',
      GLEIF_ENABLED: 'false',
      ...options.env,
    });
    const inMemoryDatabase = options.inMemoryDatabase ?? true;
    const runtime = await createRuntime({
      config,
      logger: options.logger ?? pino({ level: 'silent' }),
      inMemoryDatabase,
      // A new embedded database, in memory or in a folder, starts from the run's image (no initdb).
      ...(!backend.databaseUrl ? { embeddedDatabaseImage: await embeddedImage() } : {}),
      redisKeyPrefix: workerRedisPrefix(),
      ...(options.clock ? { clock: options.clock } : {}),
    });
    // The first load of the lists (done also with scheduled refreshes off) is over before a test
    // serves its own versions of them.
    if (!options.serveWhileListsLoad) await runtime.ctx.lists.settled();
    const app = await buildApp(options.adjust ? options.adjust(runtime.ctx) : runtime.ctx, options.app);
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    return new TestApp(app, runtime, address);
  }

  /** Sends a request and checks the response against the published OpenAPI document. */
  async request<T = any>(method: string, url: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let body: string | Buffer | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(this.baseUrl + url, { method, headers, body });
    const text = await response.text();
    const contentType = response.headers.get('content-type');
    const parsed = text.length > 0 && /json/.test(contentType ?? '') ? JSON.parse(text) : text || undefined;
    this.contract.check(method, url, response.status, contentType, parsed);
    return { status: response.status, headers: response.headers, body: parsed as T };
  }

  admin<T = any>(method: string, url: string, body?: unknown): Promise<ApiResponse<T>> {
    return this.request<T>(method, url, { key: TEST_ADMIN_TOKEN, body });
  }

  /** A fresh account (each test gets its own) and its first key, made through the operator API. */
  async createAccount(
    plan: PlanId = 'professional',
  ): Promise<{ account: Account; key: string; keyId: string }> {
    const response = await this.admin('POST', '/admin/v1/accounts', { name: `test ${plan}`, plan });
    if (response.status !== 201) throw new Error(`account creation failed: ${JSON.stringify(response.body)}`);
    return { account: response.body.account, key: response.body.key.key, keyId: response.body.key.id };
  }

  async close(): Promise<void> {
    await this.app.close();
    await this.runtime.close();
  }
}
