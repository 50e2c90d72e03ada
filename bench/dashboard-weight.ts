/**
 * The weight of each dashboard page: the bytes of its HTML, stylesheet and scripts, as served and
 * gzip-compressed (level 6, what a reverse proxy typically applies; the service itself compresses
 * only htmx, which ships a .gz). A first visit loads all of it; later pages revalidate the static
 * files (304) and load only their HTML.
 *
 *   npm run bench:dashboard
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createRuntime } from '../src/runtime.js';
import { machineLine, writeBenchmarkSection } from './support/report.js';

interface Weight {
  page: string;
  html: [number, number];
  css: [number, number];
  js: [number, number];
}

const sizes = (text: string): [number, number] => [
  Buffer.byteLength(text),
  gzipSync(text, { level: 6 }).length,
];
const sum = (parts: [number, number][]): [number, number] =>
  parts.reduce<[number, number]>((total, [raw, gz]) => [total[0] + raw, total[1] + gz], [0, 0]);
const kb = ([raw, gz]: [number, number]) => `${(raw / 1024).toFixed(1)} / ${(gz / 1024).toFixed(1)}`;

/** The small UK list fixture of the tests, so the console's result page shows real flags. */
// The UK excerpt the tests use is enough for a result page; LISTS_DIR may name the whole lists.
const LISTS_DIR = process.env.LISTS_DIR ?? path.resolve(process.cwd(), 'test/fixtures/lists');
/**
 * A public address literal: registering it resolves and connects to nothing, and the webhook
 * subscribes only to batch.complete (no batch is made), so nothing is ever sent to it.
 */
const NOWHERE_HOOK = 'https://93.184.215.14/hooks/bench';

async function main(): Promise<void> {
  const withLists = fs.existsSync(path.join(LISTS_DIR, 'UK-Sanctions-List.xml'));
  const config = loadConfig({
    DATA_DIR: '/tmp/css-bench-dashboard',
    ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef',
    LISTS_ENABLED: withLists ? 'uk_fcdo' : 'none',
    ...(withLists ? { LISTS_DIR } : {}),
    GDELT_ENABLED: 'false',
    GLEIF_ENABLED: 'false',
  });
  const runtime = await createRuntime({
    config,
    logger: pino({ level: 'silent' }),
    inMemoryDatabase: true,
    bootstrap: true,
  });
  await runtime.ctx.lists.settled();
  const app = await buildApp(runtime.ctx);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const cookies = new Map<string, string>();
  let csrf = '';
  const fetchText = async (path: string, init: RequestInit = {}) => {
    const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await fetch(base + path, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=');
      cookies.set(name!, value!);
    }
    const text = await response.text();
    csrf = /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? csrf;
    return text;
  };
  const post = (path: string, form: Record<string, string>) =>
    fetchText(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, ...form }).toString(),
    });
  const weigh = async (page: string, html: string): Promise<Weight> => {
    const css = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]!);
    const js = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    return {
      page,
      html: sizes(html),
      css: sum(await Promise.all(css.map(async (href) => sizes(await fetchText(href))))),
      js: sum(await Promise.all(js.map(async (src) => sizes(await fetchText(src))))),
    };
  };

  const weights: Weight[] = [];
  weights.push(await weigh('sign-in', await fetchText('/dashboard/sign-in')));
  const owner = runtime.defaultAccount!.owner;
  await post('/dashboard/sign-in', { email: owner.email, password: owner.password });
  weights.push(await weigh('API keys (1 key)', await fetchText('/dashboard/keys')));
  weights.push(await weigh('API keys, new key shown', await post('/dashboard/keys', { name: 'bench' })));
  weights.push(await weigh('usage', await fetchText('/dashboard/usage')));
  weights.push(await weigh('screen a name (form)', await fetchText('/dashboard/screen')));
  if (withLists) {
    await post('/dashboard/screen', { query: 'BNK UK Limited', type: 'entity' });
    const [latest] = (await runtime.ctx.screening.recent(runtime.defaultAccount!.accountId)).data;
    weights.push(
      await weigh(
        'screening result (1 flag, details closed)',
        await fetchText(`/dashboard/screenings/${latest!.id}`),
      ),
    );
  }
  weights.push(await weigh('screenings (latest)', await fetchText('/dashboard/screenings')));
  weights.push(
    await weigh(
      'webhooks, new secret shown',
      await post('/dashboard/webhooks', { url: NOWHERE_HOOK, events: 'batch.complete' }),
    ),
  );
  weights.push(await weigh('webhooks (1 webhook)', await fetchText('/dashboard/webhooks')));
  const [hook] = await runtime.ctx.webhooks.list(runtime.defaultAccount!.accountId);
  weights.push(await weigh('webhook deliveries (none)', await fetchText(`/dashboard/webhooks/${hook!.id}`)));
  // A full page of the audit log: the requests above and enough page views to fill 50 rows.
  for (let i = 0; i < 50; i++) await fetchText('/dashboard/usage');
  weights.push(await weigh('audit log (50 rows)', await fetchText('/dashboard/audit')));

  const rows = weights.map((w) => {
    const total = sum([w.html, w.css, w.js]);
    return `| ${w.page} | ${kb(w.html)} | ${kb(w.css)} | ${kb(w.js)} | ${kb(total)} |`;
  });
  const table = [
    '| page | HTML | CSS | JS (htmx + dashboard.js) | total |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  console.log(table);
  writeBenchmarkSection(
    'dashboard-weight',
    `## Dashboard page weight\n\nKB as served / gzip-compressed (level 6). ${machineLine()}.\n\n${table}`,
  );
  await app.close();
  await runtime.close();
}

await main();
