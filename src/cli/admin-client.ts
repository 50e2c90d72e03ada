import path from 'node:path';
import { ADMIN_TOKEN_FILE, readStoredAdminToken } from '../accounts/bootstrap.js';
import type { Config } from '../config.js';

/** How long the CLI waits for the service before saying it is unreachable. */
export const CLI_REQUEST_TIMEOUT_MS = 15_000;

export class CliError extends Error {}

/** The operator token the CLI sends: `ADMIN_TOKEN`, else the one the server generated into `DATA_DIR`. */
export function readAdminToken(config: Config): string {
  const token = config.adminToken ?? readStoredAdminToken(config.dataDir);
  if (token) return token;
  throw new CliError(
    `No operator token: set ADMIN_TOKEN, or run where ${path.join(config.dataDir, ADMIN_TOKEN_FILE)} exists (the server writes it).`,
  );
}

/** Talks to a running server's operator API; turns every failure into a sentence for the operator. */
export class AdminClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  async call(
    method: string,
    url: string,
    body?: unknown,
    timeoutMs = CLI_REQUEST_TIMEOUT_MS,
  ): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(new URL(url, this.baseUrl), {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const reason =
        error instanceof Error
          ? ((error.cause as Error | undefined)?.message ?? error.message)
          : String(error);
      throw new CliError(
        `Cannot reach the service at ${this.baseUrl} (${reason}). Is it running? Use --url to point elsewhere.`,
      );
    }
    const text = await response.text();
    const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    if (response.status === 401) {
      throw new CliError(
        'The service refused the operator token: check ADMIN_TOKEN (or DATA_DIR/admin-token).',
      );
    }
    if (!response.ok) {
      const detail = parsed?.detail ?? text;
      const errors = Array.isArray(parsed?.errors) ? ` ${JSON.stringify(parsed.errors)}` : '';
      throw new CliError(`${response.status} ${String(parsed?.title ?? '')}: ${String(detail)}${errors}`);
    }
    return parsed;
  }
}
