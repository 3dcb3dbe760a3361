// The MCP tools in a chain pool, through an MCP client (in memory) against the service on the
// shared node, balances read on chain before and after: `deposit` pays from the EVM account the
// server was configured with (no key in its input schema), within the policy — its network and
// asset, maxPerPayment on amount + max_fee, maxPer24h over the last day's deposits — and refuses
// without a configured account or above max_fee, nothing moved; `withdraw` moves USDC (the exit
// paid to an eip155 account on chain) and refuses, without confirm, an exit to the account that
// funded the wallet or of a deposit's amount, then makes it with confirm.

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Address } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Wallet } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import {
  createMcpServer,
  type DepositConfig,
  LedgerFile,
  PaymentAgent,
  PolicyFile,
} from '../../src/mcp/index.js';
import { type ChainStack, chainStack } from './chain-stack.js';
import { balances } from './relay-harness.js';
import { tokenCall } from './shared.js';

const FEE = 500n;
const dir = mkdtempSync(join(tmpdir(), 'priv-stark-mcp-chain-'));
let core: PrivStarkCore;
let stack: ChainStack;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  core = await loadCore();
  stack = await chainStack({ fee: FEE });
}, 120_000);

afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An EVM account holding `usdc` of the token and no ETH. */
async function evmAccount(usdc: bigint): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await tokenCall(stack.f, stack.f.admin, 'mint', [account.address, usdc]);
  return account;
}

let n = 0;
/** An agent over a fresh wallet of the chain pool, behind an MCP client. */
async function session(policy: Record<string, unknown>, deposits?: DepositConfig) {
  n++;
  const wallet = await Wallet.create({ core, pool: stack.poolUrl, network: stack.profile });
  const policyPath = join(dir, `policy-${n}.json`);
  writeFileSync(
    policyPath,
    JSON.stringify({
      maxPerPayment: '1000000',
      maxPer24h: '1500000',
      hosts: [],
      recipients: '*',
      networks: [stack.profile.network],
      assets: [stack.profile.asset],
      ...policy,
    }),
  );
  chmodSync(policyPath, 0o600);
  const ledger = await LedgerFile.open(join(dir, `ledger-${n}.json`));
  const agent = new PaymentAgent({ wallet, policy: new PolicyFile(policyPath), ledger, deposits });
  await agent.start();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createMcpServer(agent, () => undefined);
  await server.connect(serverSide);
  const client = new Client({ name: 'mcp-chain-test', version: '0.0.0' });
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await server.close();
    await ledger.close();
  });
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = (r: CallToolResult) => (r.content as { text: string }[])[0]!.text;
  return { wallet, agent, client, call, text };
}

describe('the deposit tool', () => {
  it('takes no key in its input: only the amount and max_fee', async () => {
    const { client } = await session({});
    const tool = (await client.listTools()).tools.find((t) => t.name === 'deposit')!;
    expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual(['amount', 'max_fee']);
  });

  it('pays from the configured account within the caps; refuses above them, above max_fee, or unconfigured: nothing moved', async () => {
    const owner = await evmAccount(3_000_000n);
    const { call, text, wallet } = await session({}, { account: owner, rpc: stack.f.chain.url });
    const before = await balances(stack.f, owner.address, stack.f.escrow, stack.operator);
    const paid = await call('deposit', { amount: '700000', max_fee: '500' });
    expect(paid.isError, text(paid)).toBeFalsy();
    expect(paid.structuredContent).toMatchObject({
      amount: '700000',
      fee: '500',
      depositor: owner.address,
      mined: true,
      network: stack.profile.network,
    });
    expect(await balances(stack.f, owner.address, stack.f.escrow, stack.operator)).toEqual([
      before[0]! - 700_500n,
      before[1]! + 700_000n,
      before[2]! + FEE,
    ]);
    expect(wallet.chainDeposits()).toHaveLength(1);
    const after = await balances(stack.f, owner.address, stack.f.escrow, stack.operator);
    const refusals: [Record<string, unknown>, RegExp][] = [
      [
        { amount: '1000000', max_fee: '500' },
        /^per_payment_limit: refused by the policy rule maxPerPayment/,
      ],
      [
        { amount: '800000', max_fee: '500' },
        /^rolling_24h_limit: refused by the policy rule maxPer24h/,
      ],
      [{ amount: '100000', max_fee: '499' }, /^fee_above_max: /],
      [{ amount: '100000' }, /^fee_above_max: /],
      [{ amount: '1.5' }, /Invalid|atomic units/],
    ];
    for (const [args, message] of refusals) {
      const refused = await call('deposit', args);
      expect(refused.isError, JSON.stringify(args)).toBe(true);
      expect(text(refused), JSON.stringify(args)).toMatch(message);
    }
    expect(await balances(stack.f, owner.address, stack.f.escrow, stack.operator)).toEqual(after);
    const unconfigured = await session({});
    const none = await unconfigured.call('deposit', { amount: '1000' });
    expect(unconfigured.text(none)).toMatch(/^deposit_not_configured: /);
    // The network not allowed by the policy: refused before anything is read.
    const narrow = await session(
      { networks: ['shielded:devnet'] },
      { account: owner, rpc: stack.f.chain.url },
    );
    expect(narrow.text(await narrow.call('deposit', { amount: '1000', max_fee: '500' }))).toMatch(
      /^network_not_allowed: /,
    );
    expect(await balances(stack.f, owner.address, stack.f.escrow, stack.operator)).toEqual(after);
  });
});

describe('the withdraw tool in a chain pool', () => {
  it('moves USDC to an eip155 account; an exit linking back to a deposit needs confirm', async () => {
    const owner = await evmAccount(2_000_000n);
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const home = `eip155:31337:${owner.address}`;
    const away = `eip155:31337:${to}`;
    const { call, text } = await session(
      { withdrawalDestinations: [home, away], maxPer24h: '3000000' },
      { account: owner, rpc: stack.f.chain.url },
    );
    const paid = await call('deposit', { amount: '900000', max_fee: '500' });
    expect(paid.isError, text(paid)).toBeFalsy();
    await stack.shieldAll();
    // Back to the account that funded it, or the deposit's very amount: refused, nothing spent.
    const linked = await call('withdraw', { destination: home, amount: '100000' });
    expect(text(linked)).toMatch(/^exit_linkable: .*funding_address: .*confirm: true/);
    const same = await call('withdraw', { destination: away, amount: '900000' });
    expect(text(same)).toMatch(/^exit_linkable: .*same_amount_as_deposit/);
    // Another amount to another account: the USDC arrives there.
    const before = (await balances(stack.f, to as Address))[0]!;
    const exited = await call('withdraw', { destination: away, amount: '250000' });
    expect(exited.isError, text(exited)).toBeFalsy();
    expect(exited.structuredContent).toMatchObject({ status: 'settled', warnings: [] });
    for (let i = 0; i < 50 && (await balances(stack.f, to as Address))[0] === before; i++) {
      await stack.payoutPass();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await balances(stack.f, to as Address))[0]).toBe(before + 250_000n);
    const confirmed = await call('withdraw', {
      destination: home,
      amount: '100000',
      confirm: true,
    });
    expect(confirmed.isError, text(confirmed)).toBeFalsy();
    expect((confirmed.structuredContent as { warnings: string[] }).warnings).toEqual([
      expect.stringMatching(/^funding_address: /),
    ]);
  });
});
