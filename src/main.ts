import { defaultWorkerCount, serveProcesses } from './cluster.js';
import { ConfigError, loadConfig } from './config.js';

try {
  const config = loadConfig();
  await serveProcesses(config, config.workers ?? defaultWorkerCount(config));
} catch (error) {
  const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
  process.stderr.write(`screening: ${message}\n`);
  process.exit(1);
}
