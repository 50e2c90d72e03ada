import { parentPort } from 'node:worker_threads';
import { LIST_PARSERS } from './list-registry.js';
import type { ParseRequest, ParseResponse } from './parse-thread.js';
import { parseVersion } from './parsed-version.js';

// Entry of the thread that parses list versions for the main thread (see parse-thread.ts).
// Its heap holds every temporary object of the parses and goes away when the thread is stopped.
parentPort?.on('message', async (request: ParseRequest) => {
  let response: ParseResponse;
  try {
    const parser = LIST_PARSERS.find((p) => p.id === request.parserId && p.format === request.format);
    if (!parser) throw new Error(`No parser for ${request.parserId} (${request.format}).`);
    const parsed = await parseVersion(parser, new Map(request.files), request.settings);
    response = { id: request.id, ok: parsed };
  } catch (error) {
    response = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(response);
});
