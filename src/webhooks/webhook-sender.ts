import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import net from 'node:net';
import { millisecondsSince } from '../clock.js';
import {
  bareHostname,
  checkEndpointUrl,
  type EndpointGuard,
  EndpointRefusal,
  type ResolvedAddress,
} from './endpoint-guard.js';
import {
  DELIVERY_TIMEOUT_MS,
  RESPONSE_BODY_MAX_BYTES,
  RESPONSE_EXCERPT_MAX_CHARS,
} from './webhook-policy.js';

export const WEBHOOK_USER_AGENT = 'compliance-screening-webhooks/1';

/** How one attempt ended. `abandoned`: the process is stopping; the attempt does not count. */
export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  abandoned: boolean;
}

export interface SenderLimits {
  timeoutMs: number;
  maxResponseBytes: number;
}

interface Answer {
  statusCode: number;
  body: Buffer;
}

/** Every name resolves to the address the guard checked: the socket never asks DNS again. */
function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

/** Connection errors as a short sentence without addresses or stack. */
function describeError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset by the receiver',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
    ETIMEDOUT: 'connection timed out',
    EPIPE: 'connection closed by the receiver',
    HPE_INVALID_CONSTANT: 'the answer is not HTTP',
  };
  if (typeof code === 'string') {
    if (known[code]) return known[code];
    if (/^(ERR_TLS|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|ERR_SSL)/.test(code)) return `TLS failed (${code})`;
    if (code.startsWith('HPE_')) return `invalid HTTP answer (${code})`;
    return `request failed (${code})`;
  }
  return 'request failed';
}

/** The start of a response body as printable text, for the customer reading the attempt log. */
function excerpt(body: Buffer): string {
  return body
    .toString('utf8')
    .slice(0, RESPONSE_EXCERPT_MAX_CHARS)
    .replace(/[\p{Cc}\p{Cf}]+/gu, ' ')
    .trim();
}

/**
 * Sends signed webhook bodies, one attempt at a time: the URL and its resolved address are
 * checked again before every connection, and the request goes to that very address. Redirects
 * are not followed (a 3xx is a failure), at most 64 KB of the answer is read, and the whole
 * attempt is cut at 10 s. It never throws: every outcome is a `SendResult`.
 */
export class WebhookSender {
  constructor(
    private readonly guard: EndpointGuard,
    private readonly limits: SenderLimits = {
      timeoutMs: DELIVERY_TIMEOUT_MS,
      maxResponseBytes: RESPONSE_BODY_MAX_BYTES,
    },
  ) {}

  async send(
    rawUrl: string,
    body: Buffer,
    headers: Record<string, string>,
    stop: AbortSignal,
  ): Promise<SendResult> {
    const started = performance.now();
    const timeout = AbortSignal.timeout(this.limits.timeoutMs);
    const signal = AbortSignal.any([stop, timeout]);
    const result = (ok: boolean, statusCode: number | null, error: string | null): SendResult => ({
      ok,
      statusCode,
      error,
      durationMs: millisecondsSince(started),
      abandoned: false,
    });
    try {
      const url = checkEndpointUrl(rawUrl, this.guard.policy);
      const target = await this.guard.check(url, signal);
      const answer = await this.post(url, target, body, headers, signal);
      if (answer.statusCode >= 200 && answer.statusCode < 300) return result(true, answer.statusCode, null);
      if (answer.statusCode >= 300 && answer.statusCode < 400) {
        return result(false, answer.statusCode, `redirect (${answer.statusCode}) not followed`);
      }
      const text = excerpt(answer.body);
      return result(false, answer.statusCode, `HTTP ${answer.statusCode}${text ? `: ${text}` : ''}`);
    } catch (error) {
      if (stop.aborted) return { ...result(false, null, 'abandoned at shutdown'), abandoned: true };
      if (timeout.aborted) {
        return result(false, null, `no answer within ${this.limits.timeoutMs / 1000} s`);
      }
      if (error instanceof EndpointRefusal) return result(false, null, error.message);
      return result(false, null, describeError(error));
    }
  }

  private post(
    url: URL,
    target: ResolvedAddress,
    body: Buffer,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<Answer> {
    const hostname = bareHostname(url);
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<Answer>((resolve, reject) => {
      let answered: (() => void) | undefined;
      const request = client.request(
        {
          method: 'POST',
          hostname,
          port: url.port === '' ? undefined : Number(url.port),
          path: `${url.pathname}${url.search}`,
          headers: { ...headers, 'content-length': String(body.length), 'user-agent': WEBHOOK_USER_AGENT },
          // A fresh connection per attempt: a pooled socket would skip the address check.
          agent: false,
          lookup: pinnedLookup(target),
          signal,
          ...(client === https && !net.isIP(hostname) ? { servername: hostname } : {}),
        },
        (response) => {
          answered = this.readAnswer(response, resolve);
        },
      );
      // Once the status line is in, the status decides: a body cut short (timeout, reset) still
      // counts by its status.
      request.on('error', (error) => (answered ? answered() : reject(error)));
      request.end(body);
    });
  }

  /** Reads the body up to the cap, then drops the connection; returns a function that settles now. */
  private readAnswer(response: http.IncomingMessage, resolve: (answer: Answer) => void): () => void {
    const statusCode = response.statusCode ?? 0;
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = () => resolve({ statusCode, body: Buffer.concat(chunks) });
    response.on('data', (chunk: Buffer) => {
      const room = this.limits.maxResponseBytes - size;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      size += Math.min(chunk.length, room);
      if (size >= this.limits.maxResponseBytes) {
        finish();
        response.destroy();
      }
    });
    response.on('end', finish);
    response.on('error', finish);
    response.on('close', finish);
    return finish;
  }
}
