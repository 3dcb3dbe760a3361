// A pool node's payout sender in a process of its own, for the kill -9 tests: the ledger over the
// store the arguments name, and the sender wired as the service wires it
// (src/service/payout-wiring.ts), passing on its own poll timer. It runs the built dist/ with plain
// Node (a third of the start-up of the sources through tsx: the tests start eight of these). The
// payout key comes from PAYOUT_WORKER_KEY; PRIV_STARK_FAILPOINT makes it kill itself at a crash
// point. Each log line is printed as one JSON line ({ "line": message, ...fields }).
//
// Usage: node testkit/payout-worker.mjs '<json: { store, rpcUrl, chainId, escrow, token, holder,
// leaseTtlMs, pollIntervalMs }>'

import { existsSync } from 'node:fs';

import { privateKeyToAccount } from 'viem/accounts';

const dist = new URL('../dist/', import.meta.url);
if (!existsSync(new URL('service/payout-wiring.js', dist)))
  throw new Error('dist/ is not built: run node scripts/build.mjs ts');
const { loadCore } = await import(new URL('core/index.js', dist).href);
const { Ledger, openStore } = await import(new URL('ledger/index.js', dist).href);
const { chainClients } = await import(new URL('chain/rpc-client.js', dist).href);
const { PAYOUT_DEFAULTS, payoutSender } = await import(
  new URL('service/payout-wiring.js', dist).href
);

const args = JSON.parse(process.argv[2] ?? '{}');
const print = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
const log = {
  info: (fields, message) => print({ line: message, ...fields }),
  warn: (fields, message) => print({ line: message, ...fields }),
};

const core = await loadCore();
const store = await openStore(core, args.store);
const ledger = new Ledger({ core, store });
const key = process.env.PAYOUT_WORKER_KEY;
delete process.env.PAYOUT_WORKER_KEY;
const wired = payoutSender({
  ledger,
  account: privateKeyToAccount(key),
  client: chainClients(args.rpcUrl).public,
  chainId: args.chainId,
  escrow: args.escrow,
  token: args.token,
  deployBlock: 0,
  finality: { confirmations: 1 },
  minGasBalance: 1n,
  storeConfig: args.store,
  config: { ...PAYOUT_DEFAULTS, leaseTtlMs: args.leaseTtlMs, pollIntervalMs: args.pollIntervalMs },
  log,
  holder: args.holder,
});
wired.start();
print({ ready: true });
process.once('SIGTERM', async () => {
  await wired.close();
  await store.close();
  process.exit(0);
});
