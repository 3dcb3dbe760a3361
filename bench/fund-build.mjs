#!/usr/bin/env node
// Funds a bench pool with another build's own ledger, in a process of its own (bench/builds.bench.ts
// compares builds; a build older than this checkout refuses a database of a newer schema, and two
// builds' native modules do not share one process): `node bench/fund-build.mjs <dist dir> <store
// config JSON> <deposits JSON file>`. Each deposit is `{ "amount": "…", "pre": "0x…" }`, appended
// in order; prints the checkpoint's root on stdout.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dist, storeConfig, depositsFile] = process.argv.slice(2);
const load = (path) => import(pathToFileURL(join(dist, path)).href);
const { loadCore } = await load('core/index.js');
const { Ledger, openStore } = await load('ledger/index.js');

const core = await loadCore();
const store = await openStore(core, JSON.parse(storeConfig));
const ledger = new Ledger({ core, store });
const deposits = JSON.parse(readFileSync(depositsFile, 'utf8'));
const results = await Promise.all(deposits.map((deposit) => ledger.deposit(deposit)));
results.forEach((result, i) => {
  if (!result.ok || result.index !== i)
    throw new Error(`deposit ${i} was not appended at ${i}: ${JSON.stringify(result)}`);
});
const checkpoint = await ledger.checkpoint();
await store.close();
process.stdout.write(`${checkpoint?.root ?? ''}\n`);
