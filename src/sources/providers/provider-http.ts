import { timeLimited } from '../../time-limit.js';
import { parseWellFormedJson } from '../../well-formed-json.js';
import { ConcurrencyLimit } from './concurrency-limit.js';
import { ProviderError } from './provider-error.js';
import {
  FIRST_ATTEMPT_BUDGET_SHARE,
  PROVIDER_MAX_REDIRECTS,
  PROVIDER_MAX_RESPONSE_BYTES,
  RETRY_JITTER_MAX_MS,
  RETRY_MIN_REMAINING_MS,
} from './provider-policy.js';

export const PROVIDER_USER_AGENT = 'compliance-screening-service/1';

export interface ProviderRequest {
  url: URL;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
}

export interface ProviderHttpOptions {
  provider: string;
  /** The whole call's budget: waiting for a slot, the first attempt and its one retry. */
  timeoutMs: number;
  concurrency: number;
  maxResponseBytes?: number;
  /** Jitter source; tests pin it. */
  random?: () => number;
}

interface Answer {
  status: number;
  body: Buffer;
}

/**
 * The one way adapters talk to a provider: answers are untrusted input (size-capped, parsed
 * defensively), every call has a time budget and honours the caller's signal, a 5xx or a timeout
 * gets one retry with jitter inside that budget, and redirects are followed only within the host.
 * Error messages name the provider and the failure, never a URL (it may carry a key) or a header.
 */
export class ProviderHttp {
  private readonly limit: ConcurrencyLimit;
  private readonly maxResponseBytes: number;
  private readonly random: () => number;

  constructor(private readonly options: ProviderHttpOptions) {
    this.limit = new ConcurrencyLimit(options.concurrency);
    this.maxResponseBytes = options.maxResponseBytes ?? PROVIDER_MAX_RESPONSE_BYTES;
    this.random = options.random ?? Math.random;
  }

  /** The answer parsed as JSON; a non-2xx status, a body that is not JSON or too big are failures. */
  async json<T = unknown>(request: ProviderRequest, signal: AbortSignal): Promise<T> {
    const answer = await this.call(request, signal);
    try {
      return parseWellFormedJson<T>(answer.body.toString('utf8'));
    } catch {
      throw this.error('malformed', 'the answer is not valid JSON');
    }
  }

  /** The answer as text, for providers that answer some questions in plain text (GDELT). */
  async text(request: ProviderRequest, signal: AbortSignal): Promise<string> {
    return (await this.call(request, signal)).body.toString('utf8');
  }

  private async call(request: ProviderRequest, signal: AbortSignal): Promise<Answer> {
    const deadline = performance.now() + this.options.timeoutMs;
    const budget = timeLimited(signal, this.options.timeoutMs);
    try {
      return await this.limit.run(() => this.withRetry(request, deadline, signal), budget.signal);
    } catch (error) {
      throw this.asProviderError(error, signal);
    } finally {
      budget.clear();
    }
  }

  private async withRetry(request: ProviderRequest, deadline: number, caller: AbortSignal): Promise<Answer> {
    const firstShare = this.options.timeoutMs * FIRST_ATTEMPT_BUDGET_SHARE;
    try {
      return await this.attempt(request, Math.min(firstShare, deadline - performance.now()), caller);
    } catch (error) {
      const failure = this.asProviderError(error, caller);
      const jitter = this.random() * RETRY_JITTER_MAX_MS;
      const remaining = deadline - performance.now() - jitter;
      if (!failure.retryable || caller.aborted || remaining < RETRY_MIN_REMAINING_MS) throw failure;
      await sleep(jitter, caller);
      return await this.attempt(request, deadline - performance.now(), caller);
    }
  }

  private async attempt(request: ProviderRequest, timeoutMs: number, caller: AbortSignal): Promise<Answer> {
    const limited = timeLimited(caller, timeoutMs);
    try {
      return await this.follow(request, limited.signal);
    } finally {
      limited.clear();
    }
  }

  private async follow(request: ProviderRequest, signal: AbortSignal): Promise<Answer> {
    let url = request.url;
    for (let hop = 0; ; hop++) {
      const response = await fetch(url, {
        method: request.method ?? 'GET',
        headers: {
          accept: 'application/json',
          'user-agent': PROVIDER_USER_AGENT,
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...request.headers,
        },
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        redirect: 'manual',
        signal,
      });
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel();
        url = this.redirectTarget(url, response, request, hop);
        continue;
      }
      const body = await this.readCapped(response);
      if (response.status < 200 || response.status >= 300) {
        throw this.error('http_status', `answered HTTP ${response.status}`, response.status);
      }
      return { status: response.status, body };
    }
  }

  /** Where a redirect leads, when it may be followed: GET only, same host and scheme, few hops. */
  private redirectTarget(from: URL, response: Response, request: ProviderRequest, hop: number): URL {
    const location = response.headers.get('location');
    const to = location === null ? undefined : URL.parse(location, from.href);
    if (!to || to.host !== from.host || to.protocol !== from.protocol) {
      throw this.error('redirect', `redirected to another host (HTTP ${response.status}), not followed`);
    }
    if ((request.method ?? 'GET') !== 'GET' || hop >= PROVIDER_MAX_REDIRECTS) {
      throw this.error('redirect', `redirect (HTTP ${response.status}) not followed`);
    }
    return to;
  }

  private async readCapped(response: Response): Promise<Buffer> {
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > this.maxResponseBytes) {
      await response.body?.cancel();
      throw this.error('too_large', `the answer is larger than ${this.maxResponseBytes} bytes`);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    if (!response.body) return Buffer.alloc(0);
    for await (const chunk of response.body) {
      size += chunk.byteLength;
      if (size > this.maxResponseBytes) {
        await response.body.cancel().catch(() => {});
        throw this.error('too_large', `the answer is larger than ${this.maxResponseBytes} bytes`);
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  private asProviderError(error: unknown, caller: AbortSignal): ProviderError {
    if (error instanceof ProviderError) return error;
    if (caller.aborted) return this.error('timeout', 'the screening stopped waiting');
    const name = (error as { name?: unknown }).name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      return this.error('timeout', `no answer within ${this.options.timeoutMs} ms`);
    }
    return this.error('network', 'could not be reached');
  }

  private error(failure: ProviderError['failure'], detail: string, status?: number): ProviderError {
    return new ProviderError(this.options.provider, failure, detail, status);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
