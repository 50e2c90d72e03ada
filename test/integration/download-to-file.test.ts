import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DownloadError, sha256 } from '../../src/sources/lists/download.js';
import { downloadToFile } from '../../src/sources/lists/download-to-file.js';
import { ListServer } from '../support/list-server.js';

const OPTIONS = { idleTimeoutMs: 5_000 };

describe('downloads of files too large for memory', () => {
  let server: ListServer;
  let faulty: http.Server;
  let faultyUrl: (path: string) => string;
  let folder: string;
  beforeAll(async () => {
    server = await ListServer.start();
    // /cut announces 1,000 bytes and closes after 600; /stall sends a first chunk, then nothing.
    faulty = http.createServer((req, res) => {
      if (req.url === '/cut') {
        res.writeHead(200, { 'content-length': '1000', 'content-type': 'application/json' });
        res.write(Buffer.alloc(600, 0x61), () => res.destroy());
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"id": "first line"');
      }
    });
    await new Promise<void>((resolve) => faulty.listen(0, '127.0.0.1', resolve));
    faultyUrl = (p) => `http://127.0.0.1:${(faulty.address() as AddressInfo).port}${p}`;
    folder = mkdtempSync(path.join(tmpdir(), 'download-to-file-'));
  });
  afterAll(async () => {
    await server?.close();
    faulty?.closeAllConnections();
    faulty?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  /** A target that already holds the last whole download. */
  function servedTarget(name: string): string {
    const target = path.join(folder, name);
    writeFileSync(target, 'the version in service');
    return target;
  }

  function expectUntouched(target: string): void {
    expect(readFileSync(target, 'utf8')).toBe('the version in service');
    expect(existsSync(`${target}.partial`)).toBe(false);
  }

  it('streams the file to disk with its checksum and validators, and a 304 leaves it as it is', async () => {
    const body = Buffer.alloc(3 * 1024 * 1024, 'x');
    server.serve('/entities.ftm.json', {
      body,
      headers: { 'last-modified': 'Wed, 02 Dec 2026 06:00:00 GMT' },
    });
    const target = path.join(folder, 'entities.ftm.json');
    const result = await downloadToFile(server.url('/entities.ftm.json'), target, OPTIONS);
    expect(result).toMatchObject({
      status: 'downloaded',
      path: target,
      bytes: body.byteLength,
      sha256: sha256(body),
      lastModified: 'Wed, 02 Dec 2026 06:00:00 GMT',
    });
    expect(readFileSync(target).equals(body)).toBe(true);
    if (result.status !== 'downloaded') throw new Error('not downloaded');
    const again = await downloadToFile(server.url('/entities.ftm.json'), target, {
      ...OPTIONS,
      validators: { etag: result.etag! },
    });
    expect(again).toEqual({ status: 'not_modified' });
    expect(readFileSync(target).equals(body)).toBe(true);
  });

  it('takes a file sent compressed whole, its announced length being of the compressed bytes', async () => {
    const body = Buffer.from('{"id": "x"}\n'.repeat(10_000));
    server.serve('/compressed.json', { body: gzipSync(body), headers: { 'content-encoding': 'gzip' } });
    const target = path.join(folder, 'compressed.json');
    const result = await downloadToFile(server.url('/compressed.json'), target, OPTIONS);
    expect(result).toMatchObject({ status: 'downloaded', bytes: body.byteLength, sha256: sha256(body) });
    expect(readFileSync(target).equals(body)).toBe(true);
  });

  it('refuses a transfer cut short and keeps the file it had', async () => {
    const target = servedTarget('cut.json');
    const error = await downloadToFile(faultyUrl('/cut'), target, OPTIONS).catch((e) => e);
    expect(error).toBeInstanceOf(DownloadError);
    expectUntouched(target);
  });

  it('gives up a transfer that stops sending, and keeps the file it had', async () => {
    const target = servedTarget('stalled.json');
    const error = await downloadToFile(faultyUrl('/stall'), target, { idleTimeoutMs: 300 }).catch((e) => e);
    expect(error).toBeInstanceOf(DownloadError);
    expect(error.message).toMatch(/nothing received for 300 ms/);
    expectUntouched(target);
  });

  it('refuses an HTML page in place of the file, and says when there is no file', async () => {
    const target = servedTarget('page.json');
    server.serve('/login', { body: '<html>sign in</html>', headers: { 'content-type': 'text/html' } });
    await expect(downloadToFile(server.url('/login'), target, OPTIONS)).rejects.toThrow(/HTML page/);
    expectUntouched(target);
    expect(await downloadToFile(server.url('/missing'), target, OPTIONS)).toEqual({ status: 'not_found' });
  });

  it('reads a local file where it is, dated by its modification time', async () => {
    const local = path.join(folder, 'local.ftm.json');
    writeFileSync(local, '{"id": "x"}\n');
    const result = await downloadToFile(pathToFileURL(local).href, path.join(folder, 'unused'), OPTIONS);
    expect(result).toMatchObject({ status: 'downloaded', path: local, bytes: 12 });
    expect(existsSync(path.join(folder, 'unused'))).toBe(false);
    const missing = pathToFileURL(path.join(folder, 'nope.json')).href;
    expect(await downloadToFile(missing, path.join(folder, 'unused'), OPTIONS)).toEqual({
      status: 'not_found',
    });
  });
});
