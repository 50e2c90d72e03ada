import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DownloadError, downloadFile, sha256 } from '../../src/sources/lists/download.js';
import { ListServer } from '../support/list-server.js';

const OPTIONS = { timeoutMs: 5_000, maxBytes: 1_000_000 };

describe('list file downloads', () => {
  let server: ListServer;
  let slow: http.Server;
  let slowUrl: string;
  beforeAll(async () => {
    server = await ListServer.start();
    // Sends headers and a first chunk, then nothing: a stalled transfer.
    slow = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.write('<?xml version="1.0"?><CONSOLIDATED_LIST>');
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/consolidated.xml`;
  });
  afterAll(async () => {
    await server?.close();
    slow?.closeAllConnections();
    slow?.close();
  });

  it('records the checksum and the validators of what it downloaded', async () => {
    server.serve('/a.xml', { body: 'hello', headers: { 'last-modified': 'Wed, 21 Oct 2025 07:28:00 GMT' } });
    const result = await downloadFile(server.url('/a.xml'), OPTIONS);
    expect(result).toMatchObject({
      status: 'downloaded',
      sha256: sha256(Buffer.from('hello')),
      lastModified: 'Wed, 21 Oct 2025 07:28:00 GMT',
    });
    if (result.status !== 'downloaded') throw new Error('not downloaded');
    const again = await downloadFile(server.url('/a.xml'), {
      ...OPTIONS,
      validators: { etag: result.etag! },
    });
    expect(again.status).toBe('not_modified');
  });

  it('gives up on a stalled transfer at the deadline, body included', async () => {
    const started = Date.now();
    await expect(downloadFile(slowUrl, { ...OPTIONS, timeoutMs: 300 })).rejects.toThrow(
      /no complete answer within 300 ms/,
    );
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('refuses a body over the cap, announced or streamed without a length', async () => {
    server.serve('/big.xml', { body: Buffer.alloc(2_000) });
    await expect(downloadFile(server.url('/big.xml'), { ...OPTIONS, maxBytes: 1_000 })).rejects.toThrow(
      /2000 bytes is over the 1000-byte limit/,
    );
    const chunked = http.createServer((_req, res) => {
      res.writeHead(200);
      for (let i = 0; i < 20; i++) res.write(Buffer.alloc(100));
      res.end();
    });
    await new Promise<void>((resolve) => chunked.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(chunked.address() as AddressInfo).port}/x`;
      await expect(downloadFile(url, { ...OPTIONS, maxBytes: 1_000 })).rejects.toThrow(
        /over the 1000-byte limit/,
      );
    } finally {
      chunked.close();
    }
  });

  it('refuses a redirect to another host before connecting to it, and follows one on the same host', async () => {
    server.serve('/away', { status: 301, headers: { location: 'https://evil.example.invalid/list.xml' } });
    const error = await downloadFile(server.url('/away'), OPTIONS).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DownloadError);
    expect((error as Error).message).toMatch(
      /redirected to another host \(evil\.example\.invalid\); refused/,
    );
    server.serve('/here', { status: 307, headers: { location: '/a.xml' } });
    expect(await downloadFile(server.url('/here'), OPTIONS)).toMatchObject({ status: 'downloaded' });
  });

  it('keeps a token in the query string out of error messages', async () => {
    server.serve('/err', { status: 500 });
    await expect(downloadFile(server.url('/err?token=secret123'), OPTIONS)).rejects.toThrow(
      /\/err\?…: HTTP 500/,
    );
    await expect(downloadFile(server.url('/err?token=secret123'), OPTIONS)).rejects.not.toThrow(/secret123/);
  });
});
