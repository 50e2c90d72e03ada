import fs from 'node:fs';

const BENCHMARKS_FILE = 'docs/benchmarks.md';

/**
 * Replaces the section between `<!-- bench:NAME:start -->` and `<!-- bench:NAME:end -->` in
 * docs/benchmarks.md (appending it when absent), so each bench keeps its latest figures there.
 */
export function writeBenchmarkSection(name: string, markdown: string): void {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const current = fs.existsSync(BENCHMARKS_FILE)
    ? fs.readFileSync(BENCHMARKS_FILE, 'utf8')
    : '# Benchmarks\n';
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next =
    from >= 0 && to > from
      ? current.slice(0, from) + block + current.slice(to + end.length)
      : `${current.trimEnd()}\n\n${block}\n`;
  fs.writeFileSync(BENCHMARKS_FILE, next);
}

export function machineLine(): string {
  return `Node ${process.version}, ${process.platform}/${process.arch}, measured ${new Date().toISOString().slice(0, 10)}`;
}
