import http from 'node:http';

/** How long the server has to answer; far longer than a refusal takes, even on a loaded machine. */
const ANSWER_DEADLINE_MS = 60_000;

/**
 * POSTs with `key` a CSV body that never ends (chunked: its header and a row, then nothing, the
 * request left open) and resolves with the answer the server gives meanwhile. A server that waits
 * for the body before answering never answers: the promise then rejects after a generous deadline.
 */
export function answerToUnfinishedCsv(url: string, key: string): Promise<{ status: number; body: any }> {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'text/csv' };
  const firstChunk = 'query\nSome Name\n';
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST',
      headers: { ...headers, 'transfer-encoding': 'chunked' },
    });
    const deadline = setTimeout(() => {
      request.destroy();
      reject(new Error(`no answer within ${ANSWER_DEADLINE_MS} ms while the body was still being sent`));
    }, ANSWER_DEADLINE_MS);
    request.on('error', () => {});
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        text += chunk;
      });
      response.on('end', () => {
        clearTimeout(deadline);
        request.destroy();
        resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
      });
    });
    request.write(firstChunk);
  });
}
