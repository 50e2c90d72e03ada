import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import net from 'node:net';
import { LRUCache } from 'lru-cache';
import { millisecondsSince } from '../clock.js';
import {
  bareHostname,
  checkEndpointUrl,
  type EndpointGuard,
  EndpointRefusal,
  type ResolvedAddress,
} from './endpoint-guard.js';
import {
  DELIVERY_IDLE_CONNECTION_MS,
  DELIVERY_IDLE_CONNECTIONS_PER_RECEIVER,
  DELIVERY_RECEIVERS_KEPT_MAX,
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

/**
 * Connections kept open between deliveries, one agent per endpoint origin and checked address:
 * an agent's sockets all lead to the address it was made for, so a reused connection goes where
 * the guard allowed, and a name that now resolves elsewhere gets another agent and a new
 * connection. Idle connections close after 4 s; the least recently used receivers beyond 256 are
 * dropped with their connections.
 */
class ReceiverConnections {
  private readonly agents = new LRUCache<string, http.Agent>({
    max: DELIVERY_RECEIVERS_KEPT_MAX,
    dispose: (agent) => agent.destroy(),
  });

  agentFor(url: URL, target: ResolvedAddress): http.Agent {
    const key = `${url.protocol}//${url.host} ${target.address}`;
    let agent = this.agents.get(key);
    if (!agent) {
      const options: http.AgentOptions = {
        keepAlive: true,
        // On a free socket this timeout closes it; a request in flight has its own 10 s limit.
        timeout: DELIVERY_IDLE_CONNECTION_MS,
        maxFreeSockets: DELIVERY_IDLE_CONNECTIONS_PER_RECEIVER,
        scheduling: 'lifo',
      };
      agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
      this.agents.set(key, agent);
    }
    return agent;
  }

  close(): void {
    this.agents.clear();
  }
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

/**
 * The start of a response body as one line of printable text, for the customer reading the attempt
 * log: at most `RESPONSE_EXCERPT_MAX_CHARS` characters (whole code points, `…` when cut), control,
 * format and unassigned characters and line breaks as spaces. Shown as text (escaped) wherever it
 * is shown.
 */
function excerpt(body: Buffer): string {
  // Four bytes per character at most: no more is decoded than can be shown.
  const decoded = RESPONSE_EXCERPT_MAX_CHARS * 4 + 4;
  const text = body
    .subarray(0, decoded)
    .toString('utf8')
    .replace(/[\p{C}\p{Z}]+/gu, ' ')
    .trim();
  const chars = Array.from(text);
  if (chars.length <= RESPONSE_EXCERPT_MAX_CHARS && body.length <= decoded) return text;
  return `${chars.slice(0, RESPONSE_EXCERPT_MAX_CHARS).join('').trimEnd()}…`;
}

/**
 * Sends signed webhook bodies, one attempt at a time: the URL and its resolved address are
 * checked again before every attempt, and the request goes to that very address, on a connection
 * kept from an earlier delivery to it or a new one. Redirects are not followed (a 3xx is a
 * failure), at most 64 KB of the answer is read, and the whole attempt is cut at 10 s. It never
 * throws: every outcome is a `SendResult`.
 */
export class WebhookSender {
  private readonly connections = new ReceiverConnections();

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

  /** Closes the connections kept open (at shutdown). */
  close(): void {
    this.connections.close();
  }

  private post(
    url: URL,
    target: ResolvedAddress,
    body: Buffer,
    headers: Record<string, string>,
    signal: AbortSignal,
    fresh = false,
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
          agent: fresh ? false : this.connections.agentFor(url, target),
          lookup: pinnedLookup(target),
          signal,
          ...(client === https && !net.isIP(hostname) ? { servername: hostname } : {}),
        },
        (response) => {
          answered = this.readAnswer(response, resolve);
        },
      );
      request.on('error', (error) => {
        // Once the status line is in, the status decides: a body cut short (timeout, reset)
        // still counts by its status.
        if (answered) return answered();
        // A kept connection the receiver closed just as it was reused (reset before any answer):
        // the attempt goes once more on a new connection instead of counting as a failure.
        const code = (error as NodeJS.ErrnoException).code;
        if (
          request.reusedSocket &&
          !fresh &&
          !signal.aborted &&
          (code === 'ECONNRESET' || code === 'EPIPE')
        ) {
          this.post(url, target, body, headers, signal, true).then(resolve, reject);
          return;
        }
        reject(error);
      });
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
