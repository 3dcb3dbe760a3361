// A payer on axios: the stock @x402/axios (2.11, with its own @x402/core 2.11) wraps an axios
// instance over its own `x402Client`, on which `registerPrivStark` puts this scheme — one call pays
// the 402 with a zero-knowledge proof built locally, handed over to the pool node so the header
// carries only a reference (a compact payment, about 2 KB).
//
//   POOL_URL=http://127.0.0.1:4021 WALLET=./payer.wallet npx tsx examples/pay-axios.ts http://127.0.0.1:3000/weather

import { existsSync } from 'node:fs';

import { decodePaymentResponseHeader, wrapAxiosWithPayment, x402Client } from '@x402/axios';
import axios from 'axios';
import { loadCore } from 'priv-stark';
import { registerPrivStark, Wallet } from 'priv-stark/client';

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

const api = wrapAxiosWithPayment(axios.create(), registerPrivStark(new x402Client(), wallet));
const response = await api.get(url);
process.stdout.write(`HTTP ${response.status}: ${JSON.stringify(response.data)}\n`);
const claim = response.headers['payment-response'];
process.stdout.write(
  `settlement (the merchant's claim): ${JSON.stringify(typeof claim === 'string' ? decodePaymentResponseHeader(claim) : null)}\n`,
);

// The wallet believes the pool, not the merchant: sync until the payment is settled or released.
for (let i = 0; i < 40 && wallet.payments().at(-1)?.status === 'pending'; i++) {
  await new Promise((r) => setTimeout(r, 250));
  await wallet.sync();
}
process.stdout.write(
  `pool: ${wallet.payments().at(-1)?.status ?? 'no payment'}; balance ${wallet.balance().total}\n`,
);
