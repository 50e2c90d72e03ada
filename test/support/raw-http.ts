import net from 'node:net';
import type { Answer } from './hostile-app.js';

/** How long a raw request may take before the test calls it a hang. */
const RAW_REQUEST_TIMEOUT_MS = 5_000;

/**
 * Writes bytes to 127.0.0.1:port exactly as given (duplicated headers, a wrong Content-Length,
 * bytes that are not UTF-8: things fetch and inject refuse to send) and reads the first response
 * until the server closes the connection (requests say `Connection: close`). Rejects when none
 * comes within 5 s. The sending side stays open, as real clients keep it: @fastify/static answers
 * nothing to a client that half-closes after its request.
 */
export function rawRequest(port: number, bytes: Buffer | string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no response within ${RAW_REQUEST_TIMEOUT_MS} ms`));
    }, RAW_REQUEST_TIMEOUT_MS);
    socket.on('data', (chunk) => chunks.push(chunk));
    // The server may reset the connection after answering; what it sent before still counts.
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const answer = parseResponse(Buffer.concat(chunks));
      if (answer) resolve(answer);
      else reject(new Error('the connection closed without a response'));
    });
    socket.write(bytes);
  });
}

/** The first HTTP/1.1 response in `data` (after any 100 Continue); undefined when there is none. */
export function parseResponse(data: Buffer): Answer | undefined {
  let rest = data;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine = '', ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
    if (!status) return undefined;
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const body = rest.subarray(end + 4);
    if (status === 100) {
      rest = body;
      continue;
    }
    const text =
      headers['transfer-encoding'] === 'chunked'
        ? dechunk(body)
        : body.subarray(0, Number(headers['content-length'] ?? body.length));
    return { status, headers, body: text.toString('utf8') };
  }
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!size) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** A request's bytes: request line, headers in the order and number given, body. */
export function requestBytes(
  method: string,
  target: string | Buffer,
  headers: Array<[string, string | Buffer]>,
  body: string | Buffer = '',
): Buffer {
  const parts: Buffer[] = [Buffer.from(`${method} `), Buffer.from(target), Buffer.from(' HTTP/1.1\r\n')];
  for (const [name, value] of [['host', '127.0.0.1'] as [string, string], ...headers]) {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'latin1') : value;
    parts.push(Buffer.from(`${name}: `, 'latin1'), bytes, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('connection: close\r\n\r\n'), Buffer.from(body));
  return Buffer.concat(parts);
}
