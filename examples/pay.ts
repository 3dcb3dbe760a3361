// A payer: opens (or creates) a wallet, syncs it with the pool node, and fetches a paid URL with the
// stock @x402/fetch — one call pays the 402 with a zero-knowledge proof built locally.
//
//   POOL_URL=http://127.0.0.1:4021 WALLET=./payer.wallet npx tsx examples/pay.ts http://127.0.0.1:3000/weather

import { existsSync } from 'node:fs';

import { loadCore } from 'priv-stark';
import { payingFetch, settlementOf, Wallet } from 'priv-stark/client';

const url = process.argv[2] ?? 'http://127.0.0.1:3000/weather';
const path = process.env.WALLET ?? './payer.wallet';
const pool = process.env.POOL_URL ?? 'http://127.0.0.1:4021';

const core = await loadCore();
const wallet = existsSync(path)
  ? await Wallet.open({ core, pool, path })
  : await Wallet.create({ core, pool, path });
await wallet.sync();
process.stdout.write(
  `wallet ${wallet.address}: ${wallet.balance().spendable} atomic units spendable\n`,
);

const response = await payingFetch(wallet)(url);
process.stdout.write(`HTTP ${response.status}: ${await response.text()}\n`);
process.stdout.write(
  `settlement (the merchant's claim): ${JSON.stringify(settlementOf(response))}\n`,
);

// The wallet believes the pool, not the merchant: sync until the payment is settled or released.
for (let i = 0; i < 40 && wallet.payments().at(-1)?.status === 'pending'; i++) {
  await new Promise((r) => setTimeout(r, 250));
  await wallet.sync();
}
process.stdout.write(
  `pool: ${wallet.payments().at(-1)?.status ?? 'no payment'}; balance ${wallet.balance().total}\n`,
);
