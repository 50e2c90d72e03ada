import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The exact bytes received. */
  body: Buffer;
  receivedAt: number;
}

/** What the receiver does with a request: answer with a status (and headers, body), or never answer. */
export type Behaviour =
  | { status: number; headers?: Record<string, string>; body?: string | Buffer; delayMs?: number }
  | 'hang';

/**
 * A real HTTP receiver on 127.0.0.1 for webhook tests: it records every request with its exact
 * body and answers as the test says (a status, a redirect, a huge body, or nothing at all).
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  behaviour: Behaviour = { status: 200 };
  private readonly hanging = new Set<http.ServerResponse>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(behaviour: Behaviour = { status: 200 }): Promise<WebhookReceiver> {
    let receiver!: WebhookReceiver;
    const server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        receiver.received.push({
          method: request.method ?? '',
          path: request.url ?? '',
          headers: request.headers,
          body: Buffer.concat(chunks),
          receivedAt: Date.now(),
        });
        const behaviour = receiver.behaviour;
        if (behaviour === 'hang') {
          receiver.hanging.add(response);
          return;
        }
        setTimeout(() => {
          response.writeHead(behaviour.status, behaviour.headers);
          response.end(behaviour.body);
        }, behaviour.delayMs ?? 0);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    receiver = new WebhookReceiver(server, `http://127.0.0.1:${port}/hooks`);
    receiver.behaviour = behaviour;
    return receiver;
  }

  /** Waits (polling) until at least `count` requests arrived. */
  async waitFor(count: number, withinMs = 10_000): Promise<ReceivedWebhook[]> {
    const started = Date.now();
    while (this.received.length < count) {
      if (Date.now() - started > withinMs) {
        throw new Error(
          `expected ${count} webhook requests within ${withinMs} ms, got ${this.received.length}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.received;
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
