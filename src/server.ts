import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { startMetricsServer } from './http/metrics-server.js';
import { shareWithPrimary } from './metrics/cluster-metrics.js';
import { createRuntime, type Runtime } from './runtime.js';

/** In-flight requests get this long to finish after SIGTERM/SIGINT before connections are cut. */
export const SHUTDOWN_GRACE_MS = 10_000;

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** What a first start prints: the generated operator token's file, the default key and owner (once). */
export function firstStartMessage(
  runtime: Pick<Runtime, 'adminTokenFile' | 'defaultAccount'>,
  port: number,
): string | undefined {
  const lines: string[] = [];
  if (runtime.adminTokenFile) lines.push(`Operator token generated: ${runtime.adminTokenFile} (mode 0600).`);
  const created = runtime.defaultAccount;
  if (created) {
    lines.push(
      'Created the account "default" (Professional plan). Its API key, shown only this once:',
      `  ${created.key}`,
      `Try: curl -H "Authorization: Bearer ${created.key}" http://127.0.0.1:${port}/v1/usage`,
      `Dashboard: http://127.0.0.1:${port}/dashboard  Sign in as ${created.owner.email} with this password, shown only this once:`,
      `  ${created.owner.password}`,
    );
  }
  return lines.length > 0 ? `\n${lines.join('\n')}\n\n` : undefined;
}

/**
 * The process logger. Request URLs are logged without their query string: a client that wrongly
 * puts its API key there (refused with 401) must not have it written to the logs.
 */
export function createLogger(config: Config) {
  return pino({
    level: config.logLevel,
    serializers: {
      req: (request: { method?: string; url?: string; ip?: string; id?: unknown }) => ({
        id: request.id,
        method: request.method,
        path: request.url?.split('?')[0],
        ip: request.ip,
      }),
    },
  });
}

/** Starts the HTTP server and stops it gracefully on SIGTERM/SIGINT. */
export async function serve(config: Config): Promise<void> {
  const logger = createLogger(config);
  // A worker's metrics are served by the primary, which sums its workers (src/cluster.ts).
  const shareMetrics = cluster.isWorker ? shareWithPrimary() : undefined;
  const runtime = await createRuntime({ config, logger, bootstrap: true });
  // Printed before anything else can fail: the first key and password exist only in this output.
  const message = firstStartMessage(runtime, config.port);
  if (message) process.stdout.write(message);
  const app = await buildApp(runtime.ctx, {
    logger,
    trustProxy: config.trustProxy,
    version: packageVersion(),
  });
  await app.listen({ port: config.port, host: config.host });
  shareMetrics?.(runtime.ctx.metrics.registry);
  const metricsServer =
    config.metricsPort === undefined || shareMetrics
      ? undefined
      : await startMetricsServer(runtime.ctx.metrics, {
          host: config.host,
          port: config.metricsPort,
          logger,
        });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const forceClose = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
    try {
      await Promise.all([app.close(), metricsServer?.close()]);
      // Pending writes get the rest of the grace period; an unreachable database must not hold
      // the process until an orchestrator kills it mid-write.
      await Promise.race([
        runtime.close(),
        new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref()),
      ]);
      clearTimeout(forceClose);
      logger.info('stopped');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
