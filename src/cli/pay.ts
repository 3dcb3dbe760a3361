/**
 * @module `priv-stark pay <url>`: pays a 402 with the wallet through the stock `@x402/fetch`,
 * prints the response, the merchant's settlement claim, and — unless `--no-wait` — the pool's own
 * answer, read from its log.
 */

import { parseArgs } from 'node:util';

import { payingFetch, settlementOf, Wallet } from '../client/index.js';
import { loadCore } from '../core/index.js';
import { TRANSPORT_FLAGS } from './transport-flags.js';
import { type CliIo, walletLocation } from './wallet.js';
import { walletNetwork } from './wallet-network.js';
import { syncBeforeWrite } from './write-delay.js';

const stdio: CliIo = {
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
};

/**
 * The `pay` command.
 * @returns the exit code: 0 when the response is 2xx, 1 otherwise
 */
export async function payCommand(
  argv: string[],
  io: CliIo = stdio,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      wallet: { type: 'string' },
      pool: { type: 'string' },
      'pool-mirror': { type: 'string' },
      ...TRANSPORT_FLAGS,
      method: { type: 'string' },
      header: { type: 'string', multiple: true },
      data: { type: 'string' },
      'no-wait': { type: 'boolean' },
      'wait-ms': { type: 'string' },
      'no-delay': { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  const url = positionals[0];
  if (!url) {
    io.err('usage: priv-stark pay <url> [--method M] [--header "K: V"] [--data BODY] [--no-wait]');
    return 2;
  }
  const where = walletLocation(values, env);
  const core = await loadCore();
  const wallet = await Wallet.open({ core, ...where, network: await walletNetwork(where) });
  // Stored state when it covers the epoch, else a sync and a random wait (write-delay.ts).
  await syncBeforeWrite(wallet, { noDelay: values['no-delay'] === true, say: io.err });
  const headers = new Headers();
  for (const h of values.header ?? []) {
    const at = h.indexOf(':');
    if (at > 0) headers.set(h.slice(0, at).trim(), h.slice(at + 1).trim());
  }
  const started = performance.now();
  const response = await payingFetch(wallet)(url, {
    method: values.method ?? 'GET',
    headers,
    ...(values.data !== undefined ? { body: values.data } : {}),
  });
  const elapsed = performance.now() - started;
  io.out(`HTTP ${response.status} in ${elapsed.toFixed(0)} ms`);
  io.out(await response.text());
  const settlement = settlementOf(response);
  if (settlement) io.out(`settlement (merchant's claim): ${JSON.stringify(settlement)}`);
  const record = wallet.payments().at(-1);
  // On an epoch grid the settlement is published at the next boundary, and polling that stops at
  // it would show the operator which syncs are the payer's: `wallet payments` reads it later.
  const gridded = (wallet.epochGrid?.epochMs ?? 1) > 1;
  if (record && record.status === 'pending' && gridded && !values['no-wait'])
    io.out('pool: payment pending (published at the next epoch boundary: see `wallet payments`)');
  if (record && record.status === 'pending' && !gridded && !values['no-wait']) {
    const deadline = Date.now() + Number(values['wait-ms'] ?? 15_000);
    for (;;) {
      await wallet.sync();
      const now = wallet.payments().find((p) => p.nullifier === record.nullifier);
      if (now?.status !== 'pending' || Date.now() > deadline) {
        io.out(
          `pool: payment ${now?.status ?? 'unknown'}${now?.settlementId ? ` (transaction ${now.settlementId})` : ''}`,
        );
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  return response.ok ? 0 : 1;
}
