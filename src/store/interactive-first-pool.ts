import type pg from 'pg';
import { isBackground } from '../background-work.js';

/**
 * The connections of a pool of `max` that background work (batch items) may hold at once: half,
 * so that requests always find the other half. On the embedded database, whose pool is its one
 * session, that is the one connection, when no request wants it.
 */
export function backgroundConnections(max: number): number {
  return Math.max(1, Math.floor(max / 2));
}

/**
 * Makes `pool` serve interactive queries first. `pg.Pool` hands out connections in the order they
 * were asked for, so a batch's statements queued in front of a request made it wait for all of
 * them (on the embedded database's single session, every statement of the batches in flight).
 * Here every connection is lent through two queues: a free one goes to the oldest request
 * waiting, and to background work only when no request waits (and while it holds fewer than
 * `backgroundConnections`). A request thus waits for at most the background statement running
 * when it asked.
 */
export function serveInteractiveFirst(pool: pg.Pool): void {
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const max = pool.options.max ?? 10;
  const backgroundLimit = backgroundConnections(max);
  const waitLimit = pool.options.connectionTimeoutMillis;
  const requests: Array<() => void> = [];
  const background: Array<() => void> = [];
  const heldByBackground = new Set<pg.PoolClient>();
  let lent = 0;
  let lentToBackground = 0;

  let backgroundTurnDue = false;
  // Requests get a free connection at once. Background work gets one a turn of the event loop
  // later, and only if no request asked meanwhile: its statements would otherwise follow one
  // another without a break in which a request's bytes can even be read (on the embedded
  // database, each runs in this thread).
  const lendNext = () => {
    while (lent < max && requests.length > 0) {
      lent++;
      requests.shift()!();
    }
    if (backgroundTurnDue || background.length === 0) return;
    backgroundTurnDue = true;
    setImmediate(lendToBackground);
  };
  const lendToBackground = () => {
    backgroundTurnDue = false;
    if (requests.length > 0 || lent >= max || lentToBackground >= backgroundLimit) return;
    const next = background.shift();
    if (!next) return;
    lent++;
    next();
    lendNext();
  };
  pool.on('release', (_error: unknown, client: pg.PoolClient) => {
    lent--;
    if (heldByBackground.delete(client)) lentToBackground--;
    lendNext();
  });

  const backgroundTurn = () =>
    new Promise<void>((resolve) => {
      background.push(() => {
        lentToBackground++;
        resolve();
      });
      lendNext();
    });
  const requestTurn = () =>
    new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const granted = () => {
        clearTimeout(timer);
        resolve();
      };
      requests.push(granted);
      lendNext();
      // A request waits for a connection no longer than the pool's own limit (a 503 then).
      if (!waitLimit || !requests.includes(granted)) return;
      timer = setTimeout(() => {
        requests.splice(requests.indexOf(granted), 1);
        reject(new Error('timeout exceeded when trying to connect'));
      }, waitLimit);
    });

  const lend = async (asBackground: boolean): Promise<pg.PoolClient> => {
    await (asBackground ? backgroundTurn() : requestTurn());
    try {
      const client = await connect();
      if (asBackground) heldByBackground.add(client);
      return client;
    } catch (error) {
      lent--;
      if (asBackground) lentToBackground--;
      lendNext();
      throw error;
    }
  };

  // Kysely's driver asks for connections as promises; `pool.query` would pass a callback.
  pool.connect = ((callback?: (error?: Error, client?: pg.PoolClient, done?: () => void) => void) => {
    const lending = lend(isBackground());
    if (!callback) return lending;
    lending.then(
      (client) => callback(undefined, client, () => client.release()),
      (error: Error) => callback(error),
    );
  }) as typeof pool.connect;
}
