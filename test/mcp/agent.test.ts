// The MCP server's payments in process, against the real service and stock @x402/express merchants
// on Node's default header limit: an inline payment the merchant refuses for its size (431) turns
// compact through the same fallback as payingFetch and counts once; a hand-over with no clear
// answer (the pool node unreachable for it) leaves the payment pending in the wallet and counted in
// the spend ledger, while a hand-over the pool node refuses (4xx) leaves nothing of either (the
// wallet's record closed as shown, not pending).

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { PoolNodeError, Wallet } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { LedgerFile, PaymentAgent, PolicyFile } from '../../src/mcp/index.js';
import {
  expressMerchant,
  type Merchant,
  PRICE_ATOMIC,
  type Stack,
  startStack,
} from '../../testkit/stack.js';

const dir = mkdtempSync(join(tmpdir(), 'priv-stark-mcp-agent-'));
let core: PrivStarkCore;
let stack: Stack;
/** Another pool: it refuses hand-overs of the first pool's proofs (their anchor is not its own). */
let foreign: Stack;
let merchantWallet: Wallet;
/** Lists inline first, on Node's default header limit. */
let inlineMerchant: Merchant;
/** Lists reference only (the default). */
let compactMerchant: Merchant;
const ledgers: LedgerFile[] = [];
let counter = 0;

beforeAll(async () => {
  core = await loadCore();
  [stack, foreign] = await Promise.all([startStack(core), startStack(core)]);
  merchantWallet = await stack.wallet();
  inlineMerchant = await expressMerchant(stack.facilitatorUrl, merchantWallet.address, {
    proofTransports: ['inline', 'reference'],
  });
  compactMerchant = await expressMerchant(stack.facilitatorUrl, merchantWallet.address);
}, 60_000);
afterAll(async () => {
  for (const ledger of ledgers) await ledger.close();
  await Promise.all([inlineMerchant?.close(), compactMerchant?.close()]);
  await Promise.all([stack?.close(), foreign?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

/** A funded wallet (hand-overs through `handOverFetch` when given) and its agent. */
async function agentFor(handOverFetch?: typeof fetch) {
  const wallet = await Wallet.create({
    core,
    pool: stack.poolUrl,
    ...(handOverFetch ? { handOverFetch } : {}),
  });
  await stack.fund(wallet, '30000');
  const policyPath = join(dir, `policy-${counter}.json`);
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
  chmodSync(policyPath, 0o600);
  const ledger = await LedgerFile.open(join(dir, `ledger-${counter++}.json`));
  ledgers.push(ledger);
  const agent = new PaymentAgent({
    wallet,
    policy: new PolicyFile(policyPath),
    ledger,
    pollMs: 50,
  });
  await agent.start();
  return { wallet, agent, ledger };
}

/** A fetch for hand-overs that sends them to another base URL (the same path and request). */
function redirectedTo(base: string): typeof fetch {
  return (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    return fetch(new Request(`${base}${url.pathname}${url.search}`, request));
  };
}

describe('pay_and_fetch and proof transports', () => {
  it('an inline payment the merchant refuses (431) turns compact and counts once', async () => {
    const { wallet, agent, ledger } = await agentFor();
    const settles = inlineMerchant.settled.length;
    const paid = await agent.payAndFetch({ url: `${inlineMerchant.url}/weather` });
    expect(paid).toMatchObject({ status: 200, paid: true, payment: { status: 'settled' } });
    expect(JSON.parse(paid.body)).toMatchObject({ weather: 'sunny' });
    // The inline attempt never reached the facilitator; the compact one settled.
    expect(inlineMerchant.settled.slice(settles)).toEqual(['reference']);
    expect(wallet.payments()).toEqual([expect.objectContaining({ status: 'settled' })]);
    expect(ledger.ledger.entries()).toEqual([
      expect.objectContaining({ status: 'settled', nullifier: wallet.payments()[0]!.nullifier }),
    ]);
    expect(ledger.ledger.counted()).toBe(PRICE_ATOMIC);
  });

  it('pays a merchant that lists reference compactly', async () => {
    const { agent, ledger } = await agentFor();
    const settles = compactMerchant.settled.length;
    const paid = await agent.payAndFetch({ url: `${compactMerchant.url}/weather` });
    expect(paid).toMatchObject({ status: 200, paid: true, payment: { status: 'settled' } });
    expect(compactMerchant.settled.slice(settles)).toEqual(['reference']);
    expect(ledger.ledger.counted()).toBe(PRICE_ATOMIC);
  });

  it('a hand-over without a clear answer: the payment stays pending in the wallet and counted in the ledger', async () => {
    // A port nothing listens on: the connection is refused, no reply.
    const { wallet, agent, ledger } = await agentFor(redirectedTo('http://127.0.0.1:9'));
    const settles = compactMerchant.calls.settle;
    const error = await agent.payAndFetch({ url: `${compactMerchant.url}/weather` }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PoolNodeError);
    expect(error).toMatchObject({ code: 'pool_unreachable' });
    expect(compactMerchant.calls.settle).toBe(settles);
    const records = wallet.payments();
    expect(records).toEqual([expect.objectContaining({ status: 'pending' })]);
    expect(ledger.ledger.entries()).toEqual([
      expect.objectContaining({ status: 'left', nullifier: records[0]!.nullifier }),
    ]);
    expect(ledger.ledger.counted()).toBe(PRICE_ATOMIC);
  });

  it('a hand-over the pool node refuses (4xx): nothing pending (closed as shown), nothing counted', async () => {
    const { wallet, agent, ledger } = await agentFor(redirectedTo(foreign.poolUrl));
    const error = await agent.payAndFetch({ url: `${compactMerchant.url}/weather` }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PoolNodeError);
    expect((error as PoolNodeError).status).toBeGreaterThanOrEqual(400);
    expect((error as PoolNodeError).status).toBeLessThan(500);
    // Its nullifier reached the node: the record is closed as shown, the note refreshed before reuse.
    expect(wallet.payments()).toEqual([expect.objectContaining({ status: 'expired' })]);
    expect(ledger.ledger.entries()).toEqual([expect.objectContaining({ status: 'released' })]);
    expect(ledger.ledger.counted()).toBe(0n);
  });
});
