// Preloaded (`NODE_OPTIONS=--import`) by the Node 26 test run (scripts/test.mjs): the project's
// better-sqlite3 is built for the Node ABI of `npm install` (the machine's Node); under Node 26
// every module of that package resolves instead to the same version built for Node 26's ABI in
// tools/sqlite-node26 (scripts/runtimes.mjs). Synchronous hooks, so they apply to `import` and
// `require` alike; Node runs preloads in every process and file worker thread of the run.

import { existsSync, realpathSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const built = `${root}tools/sqlite-node26/node_modules/better-sqlite3`;
if (!existsSync(`${built}/build/Release/better_sqlite3.node`))
  throw new Error('better-sqlite3 for Node 26 is not built: run node scripts/runtimes.mjs');

const installed = `${root}node_modules/better-sqlite3`;
const from = [...new Set([installed, realpathSync(installed)])].map(
  (path) => pathToFileURL(`${path}/`).href,
);
const to = pathToFileURL(`${built}/`).href;

registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    const prefix = from.find((p) => resolved.url.startsWith(p));
    return prefix ? { ...resolved, url: to + resolved.url.slice(prefix.length) } : resolved;
  },
});
