import path from 'node:path';
import { ADMIN_TOKEN_FILE, readStoredAdminToken } from '../accounts/bootstrap.js';
import type { Config } from '../config.js';

/** How long the CLI waits for the service before saying it is unreachable. */
export const CLI_REQUEST_TIMEOUT_MS = 15_000;

export class CliError extends Error {}

export interface OperatorToken {
  token: string;
  /** Where it was read, said when the service refuses it: the wrong folder's token is a common slip. */
  source: string;
}

/** The operator token the CLI sends: `ADMIN_TOKEN`, else the one the server generated into `DATA_DIR`. */
export function readAdminToken(config: Pick<Config, 'adminToken' | 'dataDir'>): OperatorToken {
  if (config.adminToken) return { token: config.adminToken, source: 'ADMIN_TOKEN' };
  const file = path.resolve(config.dataDir, ADMIN_TOKEN_FILE);
  const stored = readStoredAdminToken(config.dataDir);
  if (stored) return { token: stored, source: file };
  throw new CliError(
    `No operator token: set ADMIN_TOKEN, or DATA_DIR to the server's data folder (${file} does not exist; the server writes it there).`,
  );
}

/** Talks to a running server's operator API; turns every failure into a sentence for the operator. */
export class AdminClient {
  constructor(
    private readonly baseUrl: string,
    private readonly operator: OperatorToken,
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
          authorization: `Bearer ${this.operator.token}`,
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
      const from =
        this.operator.source === 'ADMIN_TOKEN' ? 'ADMIN_TOKEN' : `the file ${this.operator.source}`;
      throw new CliError(
        `The service at ${this.baseUrl} refused the operator token read from ${from}: set ADMIN_TOKEN, or DATA_DIR to that server's data folder.`,
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
