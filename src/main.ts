import { ConfigError, loadConfig } from './config.js';
import { serve } from './server.js';

try {
  await serve(loadConfig());
} catch (error) {
  const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
  process.stderr.write(`screening: ${message}\n`);
  process.exit(1);
}
