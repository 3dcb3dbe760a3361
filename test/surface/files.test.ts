// The files users keep held still through the wave-3 restructure (issue 22): a pool node's data
// directory, a wallet file and an MCP spend-ledger file written by the landed main before the first
// move (test/fixtures/surface/files/, by write-files.ts) load with today's code, and the wallet
// pays through the MCP agent with both. Git keeps no 0600 modes, so the copies are made private
// first, as their owner would have them.

import { chmodSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Wallet } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { LedgerFile, PaymentAgent, PolicyFile } from '../../src/mcp/index.js';
import {
  expressMerchant,
  type Merchant,
  PRICE_ATOMIC,
  type Stack,
  startStack,
} from '../../testkit/stack.js';

const FILES = fileURLToPath(new URL('../fixtures/surface/files/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'priv-stark-surface-'));
let core: PrivStarkCore;
let stack: Stack;
let merchant: Merchant;
let merchantWallet: Wallet;

beforeAll(async () => {
  cpSync(FILES, dir, { recursive: true });
  for (const name of ['wallet.json', 'spend-ledger.json']) chmodSync(join(dir, name), 0o600);
  core = await loadCore();
  stack = await startStack(core, { dataDir: join(dir, 'pool') });
  merchantWallet = await stack.wallet();
  merchant = await expressMerchant(stack.facilitatorUrl, merchantWallet.address);
}, 60_000);

afterAll(async () => {
  await merchant?.close();
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('files written before the restructure', () => {
  it('the pool, the wallet file and the spend-ledger file load, and the wallet pays with them', async () => {
    const wallet = await Wallet.open({ core, pool: stack.poolUrl, path: join(dir, 'wallet.json') });
    // What the old code wrote: one settled payment of 10,000 from a deposit of 1,000,000.
    expect(wallet.payments()).toEqual([
      expect.objectContaining({ status: 'settled', amount: PRICE_ATOMIC.toString() }),
    ]);
    expect(wallet.balance().total).toBe(1_000_000n - PRICE_ATOMIC);
    const ledger = await LedgerFile.open(join(dir, 'spend-ledger.json'));
    try {
      expect(ledger.ledger.entries()).toEqual([
        expect.objectContaining({
          status: 'settled',
          amount: PRICE_ATOMIC.toString(),
          nullifier: wallet.payments()[0]!.nullifier,
        }),
      ]);
      const policyPath = join(dir, 'policy.json');
      writeFileSync(
        policyPath,
        JSON.stringify({
          maxPerPayment: '20000',
          maxPer24h: '50000',
          hosts: ['127.0.0.1'],
          recipients: [merchantWallet.address],
          networks: ['shielded:devnet'],
          assets: ['dUSD'],
        }),
      );
      chmodSync(policyPath, 0o644);
      const agent = new PaymentAgent({
        wallet,
        policy: new PolicyFile(policyPath),
        ledger,
        pollMs: 50,
      });
      await agent.start();
      // The pool written by the old code still serves the old wallet's sync.
      expect(wallet.balance().spendable).toBe(1_000_000n - PRICE_ATOMIC);
      const paid = await agent.payAndFetch({ url: `${merchant.url}/weather` });
      expect(paid).toMatchObject({ status: 200, paid: true, payment: { status: 'settled' } });
      expect(ledger.ledger.entries().filter((e) => e.status === 'settled')).toHaveLength(
        ledger.ledger.entries().length,
      );
      await stack.settle(wallet, merchantWallet);
      expect(wallet.balance().total).toBe(1_000_000n - 2n * PRICE_ATOMIC);
      expect(merchantWallet.balance().total).toBe(PRICE_ATOMIC);
    } finally {
      await ledger.close();
    }
  });

  it('must-fail twin: a wallet file others can read is refused, as before', async () => {
    const copy = join(dir, 'open-wallet.json');
    cpSync(join(dir, 'wallet.json'), copy);
    chmodSync(copy, 0o644);
    await expect(Wallet.open({ core, pool: stack.poolUrl, path: copy })).rejects.toThrow(
      /readable by others/,
    );
  });
});
