import fs from 'node:fs';
import path from 'node:path';

const RESULTS_DIR = 'bench/results';

/**
 * Prints a bench's results as Markdown and writes them to `bench/results/NAME.md` (not committed).
 * docs/benchmarks.md keeps one hand-kept table of current figures: a run's output is copied there
 * with its date, rather than each bench rewriting a section of its own.
 */
export function writeBenchmarkSection(name: string, markdown: string): void {
  const text = `${markdown.trim()}\n`;
  console.log(`\n${text}`);
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}.md`);
  fs.writeFileSync(file, text);
  console.log(`(written to ${file})`);
}

export function machineLine(): string {
  return `Node ${process.version}, ${process.platform}/${process.arch}, measured ${new Date().toISOString().slice(0, 10)}`;
}
