// Writes test/fixtures/surface/files/: a pool node's data directory, a wallet file and an MCP spend
// ledger file, as the code of the day writes them — a wallet funded with 1,000,000 that paid one
// stock @x402/express merchant 10,000 through the MCP agent, synced, saved. Run once, by the landed
// main before the wave-3 restructure (issue 22); `files.test.ts` then loads what it wrote with the
// code of every later day and pays with it. Never rerun it to make that test pass: the point of
// the files is that they come from the old code.
//
//   npx tsx test/surface/write-files.ts

import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadCore } from '../../src/core/index.js';
import { LedgerFile, PaymentAgent, PolicyFile } from '../../src/mcp/index.js';
import { expressMerchant, startStack } from '../../testkit/stack.js';

const OUT = fileURLToPath(new URL('../fixtures/surface/files/', import.meta.url));

const core = await loadCore();
const dir = mkdtempSync(join(tmpdir(), 'priv-stark-surface-files-'));
const dataDir = join(dir, 'pool');
mkdirSync(dataDir);
const stack = await startStack(core, { dataDir });
const merchant = await stack.wallet();
const payer = await stack.wallet({ path: join(dir, 'wallet.json') });
await stack.fund(payer, '1000000');
const shop = await expressMerchant(stack.facilitatorUrl, merchant.address);

const policyPath = join(dir, 'policy.json');
writeFileSync(
  policyPath,
  JSON.stringify({
    maxPerPayment: '20000',
    maxPer24h: '50000',
    hosts: ['127.0.0.1'],
    recipients: [merchant.address],
    networks: ['shielded:devnet'],
    assets: ['dUSD'],
  }),
);
chmodSync(policyPath, 0o644);
const ledger = await LedgerFile.open(join(dir, 'spend-ledger.json'));
const agent = new PaymentAgent({ wallet: payer, policy: new PolicyFile(policyPath), ledger });
await agent.start();
const paid = await agent.payAndFetch({ url: `${shop.url}/weather` });
if (paid.status !== 200 || !paid.paid)
  throw new Error(`the payment failed: ${JSON.stringify(paid)}`);
await stack.settle(payer, merchant);
await agent.sync();
await payer.save();
await ledger.close();
await shop.close();
await stack.close();

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
cpSync(dataDir, join(OUT, 'pool'), { recursive: true });
for (const name of ['wallet.json', 'wallet.json.leaves', 'spend-ledger.json'])
  cpSync(join(dir, name), join(OUT, name));
rmSync(dir, { recursive: true, force: true });
process.stdout.write(
  `wrote ${OUT}: balance ${payer.balance().total} after paying ${paid.payment?.amount ?? '?'}\n`,
);
