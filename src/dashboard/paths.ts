import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Templates and assets are read from the package's `src/dashboard/` folder, whether this module
 * runs from `src/` (tsx, tests) or from `dist/` (`npm start`): the build copies nothing, so a build
 * can never serve stale copies. Both folders sit two levels below the package root.
 */
export const VIEWS_DIR = fileURLToPath(new URL('../../src/dashboard/views/', import.meta.url));
export const ASSETS_DIR = fileURLToPath(new URL('../../src/dashboard/assets/', import.meta.url));
/** htmx is served from its npm package (never a CDN), with the gzip copy it ships. */
export const HTMX_DIR = path.dirname(createRequire(import.meta.url).resolve('htmx.org/dist/htmx.min.js'));
export const HTMX_FILE = 'htmx.min.js';

/** Where the dashboard is mounted. */
export const DASHBOARD_PREFIX = '/dashboard';
