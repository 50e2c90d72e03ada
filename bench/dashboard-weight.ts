/**
 * The weight of each dashboard page: the bytes of its HTML, stylesheet and scripts, as served and
 * gzip-compressed (level 6, what a reverse proxy typically applies; the service itself compresses
 * only htmx, which ships a .gz). A first visit loads all of it; later pages revalidate the static
 * files (304) and load only their HTML.
 *
 *   npm run bench:dashboard
 */
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/http/app.js';
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

async function main(): Promise<void> {
  const config = loadConfig({
    DATA_DIR: '/tmp/css-bench-dashboard',
    ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef',
    LISTS_ENABLED: 'none',
    GDELT_ENABLED: 'false',
    GLEIF_ENABLED: 'false',
  });
  const runtime = await createRuntime({
    config,
    logger: pino({ level: 'silent' }),
    inMemoryDatabase: true,
    bootstrap: true,
  });
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
