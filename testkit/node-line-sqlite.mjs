// Preloaded (`NODE_OPTIONS=--import`) when the TypeScript suites run on another Node line than the
// one `npm install` built for (scripts/test-node-line.mjs; CI: Node 26): the project's
// better-sqlite3 is a native module tied to that install's Node ABI, so every module of that
// package resolves instead to the same version built for this line's ABI in
// tools/sqlite-lines/node<major>/ (scripts/runtimes.mjs). Synchronous hooks, so they apply to
// `import` and `require` alike; Node runs preloads in every process and file worker thread of
// the run.

import { existsSync, realpathSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const line = process.versions.node.split('.')[0];
const built = `${root}tools/sqlite-lines/node${line}/better-sqlite3`;
if (!existsSync(`${built}/build/Release/better_sqlite3.node`))
  throw new Error(
    `better-sqlite3 for Node ${line} is not built: run node scripts/runtimes.mjs --sqlite-lines ${line}`,
  );

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
