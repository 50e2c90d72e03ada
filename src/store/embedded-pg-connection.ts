import { EventEmitter } from 'node:events';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { serialize } from 'pg-protocol';
import type { BackendMessage } from 'pg-protocol/dist/messages.js';
import { Parser } from 'pg-protocol/dist/parser.js';
import { preparingClient } from './preparing-client.js';

/**
 * node-postgres's connection to the embedded database: the part of `pg`'s own `Connection` that a
 * client uses, with PGlite where the socket would be. It replaces PGlite's own adapter
 * (`@electric-sql/pglite/node-postgres`) for two costs that showed under live screenings: that
 * adapter hands PGlite each message of a statement (parse, bind, describe, execute, sync) in a
 * call of its own, and its serialiser counts every text's UTF-8 length in JavaScript, character
 * by character. Here the messages written
 * in one turn of the event loop go to PGlite in one call, serialised and parsed by `pg-protocol`,
 * as for a PostgreSQL server; its serialiser also writes a lone surrogate as U+FFFD, as every
 * UTF-8 encoder does, where PGlite's miscounted the text's length.
 */
export class EmbeddedPgConnection extends EventEmitter {
  // Read by pg's Client.end(), which skips connection.end() without it.
  _connecting = false;
  // pg's Client.end() destroys the stream when a query is still active.
  readonly stream = { destroy: () => this.end() };
  parsedStatements = {};
  submittedNamedStatements = {};
  private readonly parser = new Parser();
  private outgoing: Buffer[] = [];
  private answers: Promise<void> = Promise.resolve();
  private emitEveryMessage = false;

  constructor(private readonly pglite: PGlite) {
    super();
    this.on('newListener', (eventName) => {
      if (eventName === 'message') this.emitEveryMessage = true;
    });
  }

  async connect(_port: number, _host: string): Promise<void> {
    this._connecting = true;
    try {
      await this.pglite.waitReady;
      // PGlite has one session: a client that died inside a transaction must not leave it open
      // (or aborted) for the next one, nor its prepared statements, whose names the next client
      // would prepare again (preparing-client.ts).
      if (this.pglite.isInTransaction()) await this.pglite.exec('ROLLBACK');
      await this.pglite.exec('DEALLOCATE ALL');
    } catch (error) {
      this.emit('error', error);
      return;
    }
    process.nextTick(() => this.emit('readyForQuery'));
  }

  // No SSL, startup or authentication: the database is this process's own.
  requestSsl(): void {}
  startup(_config: unknown): void {}
  cancel(_processId: unknown, _secretKey: unknown): void {}
  password(_password: string): void {}

  query(text: string): void {
    this.send(serialize.query(text));
  }
  parse(query: Parameters<typeof serialize.parse>[0]): void {
    this.send(serialize.parse(query));
  }
  bind(config: Parameters<typeof serialize.bind>[0]): void {
    this.send(serialize.bind(config));
  }
  execute(config: Parameters<typeof serialize.execute>[0]): void {
    this.send(serialize.execute(config));
  }
  describe(message: Parameters<typeof serialize.describe>[0]): void {
    this.send(serialize.describe(message));
  }
  close(message: Parameters<typeof serialize.close>[0]): void {
    this.send(serialize.close(message));
  }
  flush(): void {
    this.send(serialize.flush());
  }
  sync(): void {
    this.send(serialize.sync());
  }
  sendCopyFromChunk(chunk: Buffer): void {
    this.send(serialize.copyData(chunk));
  }
  endCopyFrom(): void {
    this.send(serialize.copyDone());
  }
  sendCopyFail(message: string): void {
    this.send(serialize.copyFail(message));
  }

  end(): void {
    // Like a socket closing: pg listens for 'end' once this returns. PGlite stays open.
    this.answers = this.answers.then(() => {
      this.emit('end');
    });
  }

  ref(): void {}
  unref(): void {}

  private send(message: Buffer): void {
    if (this.outgoing.length === 0) queueMicrotask(() => this.sendWritten());
    this.outgoing.push(message);
  }

  // PGlite runs the messages in order, as one exchange, after those sent before them.
  private sendWritten(): void {
    const data = Buffer.concat(this.outgoing);
    this.outgoing = [];
    this.answers = this.answers.then(async () => {
      try {
        // The streaming call, not `execProtocolRaw`: that one also parses every answer with
        // PGlite's own parser and keeps the messages until PGlite's next `exec` or `query`, which
        // this connection never calls after connecting (13 MB after a start, growing under load).
        // The chunks are views of PGlite's memory, so each is copied before the next is written.
        const chunks: Buffer[] = [];
        await this.pglite.execProtocolRawStream(data, {
          onRawData: (chunk) => {
            chunks.push(Buffer.from(chunk));
          },
        });
        const answer = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        this.parser.parse(answer, (message) => this.deliver(message));
      } catch (error) {
        // As a socket error; none when the client that sent it has already ended.
        if (this.listenerCount('error') > 0) this.emit('error', error);
      }
    });
  }

  private deliver(message: BackendMessage): void {
    if (this.emitEveryMessage) this.emit('message', message);
    // node-postgres expects an ErrorResponse as 'errorMessage'.
    this.emit(message.name === 'error' ? 'errorMessage' : message.name, message);
  }
}

/**
 * The `pg.Pool` of the embedded database: one client at a time (PGlite serves one session), each
 * with a connection of its own, so that what reaches an ended client (its last answers, its 'end')
 * never reaches the next one.
 */
export function embeddedPool(pglite: PGlite): pg.Pool {
  class EmbeddedClient extends preparingClient(pg.Client) {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connection: new EmbeddedPgConnection(pglite) } as pg.ClientConfig);
    }
  }
  return new pg.Pool({ Client: EmbeddedClient, max: 1, user: 'postgres', database: 'postgres' });
}
