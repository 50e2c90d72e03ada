/**
 * Start time (`npm run bench:start`): how long the built service takes from its spawn to answering
 * `GET /v1/health`, to its first screening answered from a list, and to every list in service; on
 * a fresh data folder (the lists parsed from `LISTS_DIR`) and on a restart (the lists read from the
 * database). Two sets of lists: OFAC's two (SDN and consolidated, as the Watchman comparison loads)
 * and every list the service loads by default. Embedded database; `ROUNDS` (3) rounds each, the
 * median printed, with the RSS once every list is loaded and the process's CPU by then.
 *
 *   npm run build && LISTS_DIR=... npm run bench:start
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../test/support/service-process.js';
import { benchListsDir } from './matching/list-names.js';
import { cpuMsOfStat } from './support/proc-cpu.js';
import { machineLine, writeBenchmarkSection } from './support/report.js';
import { NO_REMOTE_PROVIDERS, NPM_START_MALLOC } from './support/service.js';

const LISTS_DIR = benchListsDir('bench:start');
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const ENTRY = process.env.BENCH_SERVICE_ENTRY ?? 'dist/main.js';
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
/** Listed on OFAC's SDN (record 7843) and on the UN list: a screening that flags him used a list. */
const LISTED = { query: 'Saddam Hussein Al-Tikriti', type: 'person' };
const POLL_MS = 20;

interface StartFigures {
  health: number;
  firstScreening: number;
  allLists: number;
  rssMb: number;
  cpuSeconds: number;
}

interface Started extends StartFigures {
  key: string;
}

function processFigures(pid: number): { rssMb: number; cpuSeconds: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return {
    rssMb: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024,
    cpuSeconds: cpuMsOfStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')) / 1000,
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Spawns the service on `dataDir` and times it until every list is in service; then stops it. */
async function timedStart(lists: string | undefined, dataDir: string, knownKey: string): Promise<Started> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [ENTRY], {
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      ...NPM_START_MALLOC,
      LISTS_DIR,
      ...NO_REMOTE_PROVIDERS,
      ...(lists ? { LISTS_ENABLED: lists } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const since = () => (performance.now() - started) / 1000;
  try {
    let health = Number.NaN;
    let firstScreening = Number.NaN;
    let key = knownKey;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the service exited: ${output}`);
      key ||= /cs_live_[0-9A-Za-z]{32}/.exec(output)?.[0] ?? '';
      const answer = await fetch(`${url}/v1/health`).then(
        (r) => r.json() as Promise<{ status: string; sources: Record<string, string> }>,
        () => undefined,
      );
      if (answer && Number.isNaN(health)) health = since();
      // Screened once a list is up (health is not rate limited, screenings are).
      const someListUp = Object.values(answer?.sources ?? {}).some((state) => state !== 'down');
      if (someListUp && key && Number.isNaN(firstScreening)) {
        const screened = await fetch(`${url}/v1/screen`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(LISTED),
        });
        const body = (await screened.json()) as { flags?: unknown[] };
        if (screened.status === 200 && (body.flags?.length ?? 0) > 0) firstScreening = since();
        else if (screened.status === 429)
          throw new Error('bench:start was rate limited: it screens too often');
      }
      if (answer?.status === 'ok' && !Number.isNaN(firstScreening)) {
        const allLists = since();
        await pause(2_000);
        return { health, firstScreening, allLists, key, ...processFigures(child.pid!) };
      }
      await pause(POLL_MS);
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function summary(runs: StartFigures[]): StartFigures {
  return {
    health: median(runs.map((r) => r.health)),
    firstScreening: median(runs.map((r) => r.firstScreening)),
    allLists: median(runs.map((r) => r.allLists)),
    rssMb: median(runs.map((r) => r.rssMb)),
    cpuSeconds: median(runs.map((r) => r.cpuSeconds)),
  };
}

const SETS = [
  { label: 'OFAC SDN + consolidated', lists: 'ofac_sdn,ofac_cons' },
  { label: 'every default list', lists: undefined },
];

if (!fs.existsSync(ENTRY)) {
  console.log(`bench:start needs the built service (${ENTRY}): run npm run build first.`);
  process.exit(1);
}
const rows: string[] = [];
for (const set of SETS) {
  const fresh: StartFigures[] = [];
  const restart: StartFigures[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'css-bench-start-'));
    try {
      const first = await timedStart(set.lists, dataDir, '');
      fresh.push(first);
      restart.push(await timedStart(set.lists, dataDir, first.key));
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  for (const [how, runs] of [
    ['fresh data folder', fresh],
    ['restart', restart],
  ] as const) {
    const s = summary(runs);
    const line = `| ${set.label}, ${how} | ${s.health.toFixed(2)} s | ${s.firstScreening.toFixed(2)} s | ${s.allLists.toFixed(2)} s | ${s.rssMb.toFixed(0)} MB | ${s.cpuSeconds.toFixed(1)} s |`;
    console.log(line);
    rows.push(line);
  }
}
writeBenchmarkSection(
  'start',
  [
    `Start of the built service, embedded database, median of ${ROUNDS} rounds (${machineLine()}, ${os.cpus().length} cores)`,
    '',
    '| lists, start | health answered | first screening found a listed name | every list in service | RSS then | CPU by then |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n'),
);
