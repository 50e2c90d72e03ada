import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { benchListsDir } from './matching/list-names.js';
import { cpuMsOfStat } from './support/proc-cpu.js';
import { machineLine, writeBenchmarkSection } from './support/report.js';
import { distinctScreeningBodies } from './support/screening-bodies.js';
import { liftAccountLimits, type RunningService, startService } from './support/service.js';

/**
 * Where the service's memory goes (`npm run bench:memory`, after `npm run build`): the built
 * service (`dist/main.js`, or `BENCH_SERVICE_ENTRY`) with every list of `LISTS_DIR` loaded,
 * started once on a fresh data folder (refreshing every list from the mirror) and measured after
 * a restart on it, the state it serves in: idle `IDLE_SECONDS` (30) after its lists are loaded,
 * then after `LOAD_SECONDS` (60; 0 skips the load) of distinct live screenings, `RATE` (200) a
 * second from `CONNECTIONS` (8) connections.
 *
 * Each thread reports its own V8 heap and buffers (bench/support/memory-probe.mjs, preloaded
 * into the service and inherited by its threads); PGlite's WebAssembly memory is read from the
 * process's memory map (the only mapping lying inside the large reservation V8 makes for it).
 * What the threads and PGlite do not account for is Node's and the libraries' own: code, malloc
 * arenas, thread stacks. With `DATABASE_URL` it runs on PostgreSQL (in a schema of its own).
 */

const LISTS_DIR = benchListsDir('bench:memory');
const ENTRY = process.env.BENCH_SERVICE_ENTRY ?? 'dist/main.js';
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 30);
const LOAD_SECONDS = Number(process.env.LOAD_SECONDS ?? 60);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 8);
/** Screenings per second of the load, all connections together: the same work on a busy machine. */
const RATE = Number(process.env.RATE ?? 200);
const PROBE = path.resolve('bench/support/memory-probe.mjs');
const mb = (bytes: number) => bytes / 1024 / 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface ThreadReport {
  threadId: number;
  collected: number;
  at: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  physical: number;
}

interface Mapping {
  start: bigint;
  end: bigint;
  perms: string;
  name: string;
  rss: number;
}

function mappings(pid: number): Mapping[] {
  const out: Mapping[] = [];
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      out.push({
        start: BigInt(`0x${head[1]}`),
        end: BigInt(`0x${head[2]}`),
        perms: head[3]!,
        name: head[4]!,
        rss: 0,
      });
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && out.length > 0) out[out.length - 1]!.rss = Number(rss[1]) * 1024;
  }
  return out;
}

/** A WebAssembly memory: readable and writable, anonymous, between two reserved (---p) regions of 1 GB or more. */
function wasmMemory(maps: Mapping[]): { committed: number; rss: number } {
  const GB = 1n << 30n;
  let committed = 0;
  let rss = 0;
  maps.forEach((m, i) => {
    const before = maps[i - 1];
    const after = maps[i + 1];
    const reserved = (r: Mapping | undefined) => r?.perms === '---p' && r.end - r.start >= GB;
    if (m.perms !== 'rw-p' || m.name !== '' || m.end - m.start < 1n << 20n) return;
    if (!reserved(before) || !reserved(after)) return;
    if (before!.end !== m.start || m.end !== after!.start) return;
    committed += Number(m.end - m.start);
    rss += m.rss;
  });
  return { committed, rss };
}

function threads(probeDir: string): Map<number, { name: string; report: ThreadReport }> {
  const names = new Map<number, string>([[0, 'main']]);
  const file = path.join(probeDir, 'threads.txt');
  if (fs.existsSync(file)) {
    for (const line of fs.readFileSync(file, 'utf8').trim().split('\n')) {
      const [id, name] = line.split(' ');
      names.set(Number(id), name!.replace(/-thread-entry$/, ' thread'));
    }
  }
  const out = new Map<number, { name: string; report: ThreadReport }>();
  for (const entry of fs.readdirSync(probeDir)) {
    if (!entry.startsWith('thread-') || !entry.endsWith('.json')) continue;
    const report = JSON.parse(fs.readFileSync(path.join(probeDir, entry), 'utf8')) as ThreadReport;
    // A thread that has ended stops writing: only those that wrote in the last 3 s are alive.
    if (Date.now() - report.at > 3_000) continue;
    out.set(report.threadId, { name: names.get(report.threadId) ?? `thread ${report.threadId}`, report });
  }
  return out;
}

function rssOf(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;
}

let collections = 0;

/**
 * The table of one moment: each thread's V8 heap and buffers, PGlite, and the rest, adding up to
 * the RSS; after every thread has run a full collection (the RSS before it is given apart).
 */
async function breakdown(
  pid: number,
  probeDir: string,
): Promise<{ rows: [string, number][]; rss: number; rssBefore: number }> {
  const rssBefore = rssOf(pid);
  // Twice: the buffers a collection finds dead are freed after it, by another thread.
  for (let round = 0; round < 2; round++) {
    const asked = ++collections;
    fs.writeFileSync(path.join(probeDir, 'collect'), String(asked));
    while (![...threads(probeDir).values()].every(({ report }) => report.collected >= asked))
      await sleep(200);
    await sleep(1_000);
  }
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) * 1024;
  const fileBacked = Number(/RssFile:\s+(\d+)/.exec(status)?.[1]) * 1024;
  const wasm = wasmMemory(mappings(pid));
  const rows: [string, number][] = [];
  for (const [id, { name, report }] of [...threads(probeDir)].sort((a, b) => a[0] - b[0])) {
    rows.push([`${name}: V8 heap (${mb(report.heapUsed).toFixed(0)} MB of it in use)`, report.physical]);
    rows.push([`${name}: array buffers (typed arrays, Buffers)`, report.arrayBuffers]);
    // The main thread's external memory counts PGlite's WebAssembly memory at its committed size.
    const other = report.external - report.arrayBuffers - (id === 0 ? wasm.committed : 0);
    rows.push([`${name}: other external memory`, Math.max(0, other)]);
  }
  if (wasm.committed > 0)
    rows.push([`PGlite WebAssembly memory (resident, of ${mb(wasm.committed).toFixed(0)} MB)`, wasm.rss]);
  rows.push(['code and data mapped from files (node, libraries)', fileBacked]);
  const counted = rows.reduce((sum, [, bytes]) => sum + bytes, 0);
  rows.push([
    'the rest: malloc, V8 code and metadata, stacks, compiled WebAssembly',
    Math.max(0, rss - counted),
  ]);
  return { rows, rss, rssBefore };
}

async function untilListsLoaded(service: RunningService): Promise<void> {
  for (;;) {
    const response = await fetch(`${service.url}/admin/v1/lists`, {
      headers: { authorization: `Bearer ${service.adminToken}` },
    });
    const body = (await response.json()) as { data: { state: string }[] };
    if (body.data.every((list) => list.state === 'fresh')) return;
    await sleep(200);
  }
}

async function load(
  service: RunningService,
  key: string,
  bodies: string[],
): Promise<{ total: number; non2xx: number }> {
  let next = 0;
  const result = await autocannon({
    url: service.url,
    connections: CONNECTIONS,
    duration: LOAD_SECONDS,
    overallRate: RATE,
    requests: [
      {
        method: 'POST',
        path: '/v1/screen',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        setupRequest: (req: autocannon.Request) => ({ ...req, body: bodies[next++ % bodies.length] }),
      },
    ],
  });
  return { total: result.requests.total, non2xx: result.non2xx };
}

const env: Record<string, string> = { LISTS_DIR, LISTS_ENABLED: 'all' };
// glibc's malloc settings (MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_...) go to the service, to compare them.
for (const [name, value] of Object.entries(process.env))
  if (name.startsWith('MALLOC_') && value !== undefined) env[name] = value;
const schema = process.env.DATABASE_URL
  ? await (await import('../test/support/postgres-schema.js')).createSchema(
      process.env.DATABASE_URL,
      `bench_memory_${Date.now().toString(36)}`,
    )
  : undefined;
if (schema) env.DATABASE_URL = schema.url;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'css-bench-memory-'));
const probeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'css-bench-memory-probe-'));
const setup = schema ? 'PostgreSQL' : 'embedded';
const start = () =>
  startService(
    { ...env, MEMORY_PROBE_DIR: probeDir },
    { entry: ENTRY, nodeArgs: ['--expose-gc', '--import', PROBE], dataDir },
  );
try {
  // The first start stores every list; the measured run is a restart, as the service usually starts.
  const first = await startService(env, { entry: ENTRY, dataDir });
  await untilListsLoaded(first);
  await sleep(2_000);
  await first.stop();
  const bodies = distinctScreeningBodies(LISTS_DIR, 40_000, 7);
  const service = await start();
  try {
    await untilListsLoaded(service);
    await liftAccountLimits(service);
    await sleep(IDLE_SECONDS * 1000);
    const idle = await breakdown(service.pid, probeDir);
    const cpuMs = () => cpuMsOfStat(fs.readFileSync(`/proc/${service.pid}/stat`, 'utf8'));
    const cpuBefore = cpuMs();
    const screened = LOAD_SECONDS > 0 ? await load(service, first.key, bodies) : { total: 0, non2xx: 0 };
    const cpuPerScreening = (cpuMs() - cpuBefore) / Math.max(1, screened.total);
    await sleep(3_000);
    const loaded = await breakdown(service.pid, probeDir);
    const rows = idle.rows.map(([label, bytes], i) => {
      const after = loaded.rows.find(([other]) => other.split(' (')[0] === label.split(' (')[0]);
      return [label, mb(bytes).toFixed(0), after ? mb(after[1]).toFixed(0) : '-', i];
    });
    for (const [label, bytes] of loaded.rows)
      if (!idle.rows.some(([other]) => other.split(' (')[0] === label.split(' (')[0]))
        rows.push([label, '-', mb(bytes).toFixed(0), rows.length]);
    const lines = [
      `| component | idle ${IDLE_SECONDS} s after the lists loaded, MB | after ${LOAD_SECONDS} s of screenings, MB |`,
      '| --- | ---: | ---: |',
      ...rows.map(([label, a, b]) => `| ${label} | ${a} | ${b} |`),
      `| **RSS** | ${mb(idle.rss).toFixed(0)} | ${mb(loaded.rss).toFixed(0)} |`,
      `| RSS before that full collection | ${mb(idle.rssBefore).toFixed(0)} | ${mb(loaded.rssBefore).toFixed(0)} |`,
    ];
    writeBenchmarkSection(
      `memory-${setup.toLowerCase()}`,
      `${setup}, ${ENTRY}, every list of LISTS_DIR, after a restart (${machineLine()}, ${os.availableParallelism()} cores)\n\n` +
        `${lines.join('\n')}\n\nload: ${screened.total} screenings (${(screened.total / LOAD_SECONDS).toFixed(0)}/s) ` +
        `from ${CONNECTIONS} connections, non-2xx ${screened.non2xx}; the service's CPU ${cpuPerScreening.toFixed(2)} ms per screening`,
    );
  } finally {
    await service.stop();
  }
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(probeDir, { recursive: true, force: true });
  await schema?.drop();
}
