// The MCP tools that move notes by transitions (`POST /transitions` on the pool node), in process
// against the real service on loopback and spoken to through the MCP SDK's own client (an in-memory
// transport to the server's tools): `withdraw` pays out only to a destination the policy lists,
// counts against the policy's limits like a payment and is recorded in the spend ledger as a
// withdrawal (a second one over the 24-hour budget is refused, nothing leaving the pool); a
// destination not listed, or not checksummed, is refused and the pool's withdrawn total does not
// move. `merge_notes` and `split_note` keep the value in the wallet and are not counted, but are
// rate-limited per process (the next one past the limit refused, its twin under it passes, the
// window rolls). A withdrawal the pool never answered stays counted until the wallet's sync
// resolves it; one the pool refused is released at once. Each success has its must-fail twin.

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Wallet } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import {
  createMcpServer,
  LedgerFile,
  PaymentAgent,
  parsePolicy,
  PolicyFile,
  SpendLedger,
  TOOL_NAMES,
} from '../../src/mcp/index.js';
import { type Stack, startStack } from '../../testkit/stack.js';
import { errorCode, textOf } from './helpers/child.js';

/** EIP-55's own test vectors (checksummed). */
const ALICE = 'eip155:8453:0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const BOB = 'eip155:8453:0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const NOTE = 30_000n;

const dir = mkdtempSync(join(tmpdir(), 'priv-stark-mcp-transitions-'));
let core: PrivStarkCore;
let stack: Stack;
const closers: (() => Promise<void>)[] = [];
let counter = 0;

beforeAll(async () => {
  core = await loadCore();
  stack = await startStack(core);
}, 120_000);
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: tool results are JSON the assertions read freely
type Structured = Record<string, any>;

/** An agent over a funded wallet of `notes` notes of {@link NOTE}, behind an MCP client. */
async function agentFor(options: {
  notes: number;
  policy?: Record<string, unknown>;
  transitionsPerMinute?: number;
  handOverFetch?: typeof fetch;
  clock?: () => number;
}) {
  const n = counter++;
  const wallet = await Wallet.create({
    core,
    pool: stack.poolUrl,
    ...(options.handOverFetch ? { handOverFetch: options.handOverFetch } : {}),
  });
  for (let i = 0; i < options.notes; i++) {
    const ticket = await wallet.depositTicket(NOTE.toString());
    await stack.operator.deposit(ticket.amount, ticket.pre);
  }
  await stack.settle(wallet);
  const policyPath = join(dir, `policy-${n}.json`);
  writeFileSync(
    policyPath,
    JSON.stringify({
      maxPerPayment: '20000',
      maxPer24h: '30000',
      hosts: ['127.0.0.1'],
      recipients: '*',
      networks: ['shielded:devnet'],
      assets: ['dUSD'],
      withdrawalDestinations: [ALICE],
      ...options.policy,
    }),
  );
  chmodSync(policyPath, 0o600);
  const ledger = await LedgerFile.open(join(dir, `ledger-${n}.json`), options.clock);
  closers.push(() => ledger.close());
  const agent = new PaymentAgent({
    wallet,
    policy: new PolicyFile(policyPath),
    ledger,
    clock: options.clock,
    transitionsPerMinute: options.transitionsPerMinute,
  });
  await agent.start();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createMcpServer(agent, () => undefined);
  await server.connect(serverSide);
  const client = new Client({ name: 'transitions-test', version: '0.0.0' });
  await client.connect(clientSide);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  const ok = async (name: string, args: Record<string, unknown> = {}): Promise<Structured> => {
    const result = await call(name, args);
    expect(result.isError, textOf(result)).toBeFalsy();
    return result.structuredContent as Structured;
  };
  const refused = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await call(name, args);
    expect(result.isError, textOf(result)).toBe(true);
    return { code: errorCode(result), text: textOf(result) };
  };
  const counted = async () => BigInt((await ok('get_policy')).usage.counted_24h);
  return { wallet, agent, ledger, client, call, ok, refused, counted };
}

// The ledger's own head: the node's /state shows what a checkpoint published.
const withdrawn = async () => BigInt((await stack.service.ledger.state()).withdrawnTotal);
/** What "nothing left the wallet" means: the same total and the same notes. */
const kept = (b: Structured) => ({ total: b.total, notes: b.notes });

describe('the policy field withdrawalDestinations', () => {
  const base = {
    maxPerPayment: '1',
    maxPer24h: '1',
    hosts: [],
    recipients: [],
    networks: [],
    assets: [],
  };

  it('lists exact, checksummed CAIP-10 account ids; absent means none', () => {
    expect(parsePolicy(base).withdrawalDestinations).toEqual([]);
    expect(
      parsePolicy({ ...base, withdrawalDestinations: [ALICE, BOB, ALICE] }).withdrawalDestinations,
    ).toEqual([ALICE, BOB]);
  });

  it('refuses an unchecksummed address, another namespace, or not a list (policy_invalid)', () => {
    for (const bad of [
      [ALICE.toLowerCase()],
      ['eip155:8453:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'],
      ['cosmos:cosmoshub-4:cosmos1abc'],
      ALICE,
      '*',
      [42],
    ]) {
      expect(() => parsePolicy({ ...base, withdrawalDestinations: bad })).toThrow(
        expect.objectContaining({ code: 'policy_invalid' }),
      );
    }
  });
});

describe('withdraw, merge_notes and split_note over MCP', () => {
  it('lists the three tools with their schemas', async () => {
    const { client } = await agentFor({ notes: 0 });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    const byName = new Map(tools.map((t) => [t.name, t]));
    // confirm (issue 24): an exit linking back to the wallet's deposits goes ahead only with it.
    expect(Object.keys(byName.get('withdraw')!.inputSchema.properties ?? {})).toEqual([
      'destination',
      'amount',
      'confirm',
    ]);
    expect(byName.get('withdraw')!.inputSchema.required ?? []).toEqual(['destination', 'amount']);
    expect(Object.keys(byName.get('split_note')!.inputSchema.properties ?? {})).toEqual([
      'commitment',
      'amount',
    ]);
    expect(byName.get('merge_notes')!.inputSchema.required ?? []).toEqual([]);
    for (const name of ['withdraw', 'merge_notes', 'split_note'])
      expect(byName.get(name)!.outputSchema?.type).toBe('object');
    expect(byName.get('withdraw')!.description).toMatch(
      /reveals to the pool the amount and the destination/,
    );
    expect(byName.get('merge_notes')!.description).toMatch(
      /two nullifiers and two new commitments/,
    );
    expect(byName.get('split_note')!.description).toMatch(/do not split right before a payment/);
  });

  it('withdraws to an allowed destination, counted like a payment; a second one over the budget is refused and nothing leaves', async () => {
    const a = await agentFor({ notes: 3, transitionsPerMinute: 10 });
    const before = await withdrawn();
    const done = await a.ok('withdraw', { destination: ALICE, amount: '15000' });
    expect(done).toMatchObject({
      status: 'settled',
      amount: '15000',
      destination: ALICE,
      change: '15000',
      asset: 'dUSD',
      network: 'shielded:devnet',
      usage: { counted_24h: '15000', remaining_24h: '15000' },
    });
    expect(done.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await withdrawn()).toBe(before + 15_000n);
    expect(await a.counted()).toBe(15_000n);
    // In the spend ledger as a withdrawal, settled by the pool's receipt.
    expect(a.ledger.ledger.entries()).toEqual([
      expect.objectContaining({
        kind: 'withdrawal',
        status: 'settled',
        amount: '15000',
        payTo: ALICE,
        settlementId: done.transaction,
      }),
    ]);
    const { payments } = await a.ok('list_payments');
    expect(payments).toEqual([
      expect.objectContaining({
        id: done.id,
        kind: 'withdrawal',
        status: 'settled',
        amount: '15000',
        pay_to: ALICE,
        host: null,
        url: null,
        settlement_id: done.transaction,
      }),
    ]);
    await stack.settle(a.wallet);
    const balance = await a.ok('get_balance');
    expect(balance.total).toBe((3n * NOTE - 15_000n).toString());

    // Twin: 15000 counted, 20000 more would pass maxPer24h (30000). Refused, nothing leaves.
    const over = await a.refused('withdraw', { destination: ALICE, amount: '20000' });
    expect(over.code).toBe('rolling_24h_limit');
    expect(over.text).toMatch(/policy rule maxPer24h/);
    expect(await withdrawn()).toBe(before + 15_000n);
    expect(kept(await a.ok('get_balance'))).toEqual(kept(balance));
    expect(await a.counted()).toBe(15_000n);
    // Above the per-payment maximum: refused by that rule, before the pool is asked.
    const big = await a.refused('withdraw', { destination: ALICE, amount: '20001' });
    expect(big.code).toBe('per_payment_limit');
    expect(big.text).toMatch(/policy rule maxPerPayment/);
    expect(await withdrawn()).toBe(before + 15_000n);
    expect(a.ledger.ledger.entries().filter((e) => e.status !== 'released')).toHaveLength(1);

    // Merge and split: the value stays in the wallet, nothing counted.
    const notes: { commitment: string; value: string }[] = balance.spendable_notes;
    const whole = notes.find((n) => n.value === NOTE.toString())!;
    const split = await a.ok('split_note', { commitment: whole.commitment, amount: '5000' });
    expect(split).toMatchObject({
      split: whole.commitment,
      parts: ['5000', '25000'],
      rate: { used_last_minute: 1, limit_per_minute: 10 },
    });
    expect(split.output_indexes).toHaveLength(2);
    await stack.settle(a.wallet);
    const merged = await a.ok('merge_notes');
    // The two smallest spendable: the split's 5000 and the withdrawal's change of 15000.
    expect(merged).toMatchObject({ value: '20000', rate: { used_last_minute: 2 } });
    await stack.settle(a.wallet);
    expect(await withdrawn()).toBe(before + 15_000n);
    expect(await a.counted()).toBe(15_000n);
    const after = await a.ok('get_balance');
    expect(after.total).toBe(balance.total);
    expect(after.spendable_notes.map((n: { value: string }) => n.value)).toEqual([
      '30000',
      '25000',
      '20000',
    ]);
    expect(a.ledger.ledger.entries().filter((e) => e.status !== 'released')).toHaveLength(1);
    expect((await a.ok('list_payments')).payments).toHaveLength(1);
    // The budget they did not use is still there: exactly the rest of it passes.
    await a.ok('withdraw', { destination: ALICE, amount: '15000' });
    expect(await a.counted()).toBe(30_000n);
    expect(await withdrawn()).toBe(before + 30_000n);
  });

  it('refuses a destination the policy does not list, or one not checksummed: nothing leaves the pool', async () => {
    const a = await agentFor({ notes: 1 });
    const before = await withdrawn();
    const balance = await a.ok('get_balance');
    const other = await a.refused('withdraw', { destination: BOB, amount: '1000' });
    expect(other.code).toBe('destination_not_allowed');
    expect(other.text).toMatch(/policy rule withdrawalDestinations/);
    const lower = await a.refused('withdraw', { destination: ALICE.toLowerCase(), amount: '1000' });
    expect(lower.code).toBe('invalid_destination');
    expect(lower.text).toMatch(/EIP-55/);
    const zero = await a.refused('withdraw', { destination: ALICE, amount: '0' });
    expect(zero.code).toBe('invalid_amount');
    expect(await withdrawn()).toBe(before);
    expect(kept(await a.ok('get_balance'))).toEqual(kept(balance));
    expect(await a.counted()).toBe(0n);
    expect(a.ledger.ledger.entries()).toEqual([]);
    // A policy without the field allows no withdrawal at all.
    const none = await agentFor({ notes: 0, policy: { withdrawalDestinations: undefined } });
    const refusal = await none.refused('withdraw', { destination: ALICE, amount: '1000' });
    expect(refusal.code).toBe('destination_not_allowed');
    expect(refusal.text).toMatch(/allows no withdrawal/);
    // tighten_policy can remove a destination, never add one.
    expect(
      (await a.ok('tighten_policy', { remove_withdrawal_destinations: [ALICE] })).policy,
    ).toMatchObject({ withdrawal_destinations: [] });
    expect((await a.refused('withdraw', { destination: ALICE, amount: '1000' })).code).toBe(
      'destination_not_allowed',
    );
    expect(await withdrawn()).toBe(before);
  });

  it('rate-limits merges and splits: past the limit refused with nothing sent, under it passing, the window rolling', async () => {
    let skew = 0;
    const clock = () => Date.now() + skew;
    const a = await agentFor({ notes: 3, transitionsPerMinute: 2, clock });
    const balance = await a.ok('get_balance');
    const [n1, n2, n3] = balance.spendable_notes as { commitment: string }[];
    // A split the wallet refuses (a part below 1000) sends nothing and takes no slot.
    const small = await a.refused('split_note', { commitment: n1!.commitment, amount: '500' });
    expect(small.code).toBe('unpayable_requirements');
    // Two under the limit pass.
    expect(await a.ok('split_note', { commitment: n1!.commitment, amount: '10000' })).toMatchObject(
      { rate: { used_last_minute: 1, limit_per_minute: 2 } },
    );
    expect(await a.ok('split_note', { commitment: n2!.commitment, amount: '10000' })).toMatchObject(
      { rate: { used_last_minute: 2 } },
    );
    // The third within the minute is refused; the note is untouched.
    const limited = await a.refused('split_note', { commitment: n3!.commitment, amount: '10000' });
    expect(limited.code).toBe('rate_limited');
    expect(limited.text).toMatch(/at most 2 merges and splits per minute/);
    expect((await a.refused('merge_notes')).code).toBe('rate_limited');
    await stack.settle(a.wallet);
    const now = await a.ok('get_balance');
    expect(now.spendable_notes.map((n: { commitment: string }) => n.commitment)).toContain(
      n3!.commitment,
    );
    expect(now).toMatchObject({ total: (3n * NOTE).toString(), notes: 5 });
    expect(await a.counted()).toBe(0n);
    // A minute later the window has rolled: it passes.
    skew = 61_000;
    expect(await a.ok('split_note', { commitment: n3!.commitment, amount: '10000' })).toMatchObject(
      { rate: { used_last_minute: 1 } },
    );
    expect(await a.counted()).toBe(0n);
  });

  it('a withdrawal the pool never answered stays counted until resolved; one the pool refused is released at once', async () => {
    let skew = 0;
    const clock = () => Date.now() + skew;
    /** Where the wallet's transitions go: the pool itself, a port nothing listens on, or a path the pool refuses. */
    let route: 'pool' | 'nowhere' | 'refused' = 'pool';
    const transport: typeof fetch = (input, init) => {
      const request = new Request(input, init);
      const url = new URL(request.url);
      const base =
        route === 'nowhere'
          ? 'http://127.0.0.1:9'
          : route === 'refused'
            ? `${stack.poolUrl}/not-here`
            : stack.poolUrl;
      return fetch(new Request(`${base}${url.pathname}${url.search}`, request));
    };
    const a = await agentFor({ notes: 1, handOverFetch: transport, clock });
    const before = await withdrawn();

    route = 'refused';
    const refusal = await a.refused('withdraw', { destination: ALICE, amount: '10000' });
    expect(refusal.text).not.toMatch(/may have been applied/);
    expect(await a.counted()).toBe(0n);
    expect(a.ledger.ledger.entries()).toEqual([expect.objectContaining({ status: 'released' })]);

    route = 'nowhere';
    const unanswered = await a.refused('withdraw', { destination: ALICE, amount: '10000' });
    expect(unanswered.code).toBe('pool_unreachable');
    expect(unanswered.text).toMatch(/may have been applied/);
    expect(await withdrawn()).toBe(before);
    // Counted, and listed as pending, while a sync cannot tell.
    await a.ok('get_balance');
    expect(await a.counted()).toBe(10_000n);
    expect((await a.ok('list_payments')).payments).toEqual([
      expect.objectContaining({ kind: 'withdrawal', status: 'pending', amount: '10000' }),
    ]);
    // Its expiry bound passed with the note unspent: the pool can no longer take it.
    skew = 10 * 60_000;
    await a.ok('get_balance');
    expect(await a.counted()).toBe(0n);
    expect(a.ledger.ledger.entries().map((e) => e.status)).toEqual(['released', 'expired']);
    expect(await withdrawn()).toBe(before);
  });
});

describe('withdrawals in the spend ledger', () => {
  const reservation = {
    kind: 'withdrawal' as const,
    note: '0xabc',
    amount: 5000n,
    network: 'shielded:devnet',
    asset: 'dUSD',
    payTo: ALICE,
    host: '',
    url: '',
  };

  it('a withdrawal left reserved by a crash stays counted until its note is seen spent or its expiry passes', () => {
    let now = 1_700_000_000_000;
    const ledger = new SpendLedger([], () => now);
    const entry = ledger.reserve(reservation, 10_000n);
    expect(entry).toMatchObject({ kind: 'withdrawal', note: '0xabc', status: 'reserved' });
    const twin = ledger.reserve({ ...reservation, note: '0xdef' }, 10_000n);
    // Restart: both may have been applied; neither is linked to a payment record.
    const restarted = new SpendLedger(ledger.entries(), () => now);
    expect(restarted.recover([])).toBe(true);
    expect(restarted.entries().map((e) => e.status)).toEqual(['left', 'left']);
    expect(restarted.counted()).toBe(10_000n);
    // The first note is gone from the wallet (spent: applied); the second is still there.
    expect(restarted.reconcileWithdrawals(new Set(['0xdef']))).toBe(true);
    expect(restarted.entries().map((e) => e.status)).toEqual(['settled', 'left']);
    expect(restarted.reconcileWithdrawals(new Set(['0xdef']))).toBe(false);
    now = (twin.expiry! + 120) * 1000;
    expect(restarted.reconcileWithdrawals(new Set(['0xdef']))).toBe(true);
    expect(restarted.entries().map((e) => e.status)).toEqual(['settled', 'expired']);
    expect(restarted.counted()).toBe(5000n);
    // A payment's reservation is still released on recovery when nothing matches.
    const payments = new SpendLedger([], () => now);
    payments.reserve({ ...reservation, kind: undefined, note: undefined }, 10_000n);
    payments.recover([]);
    expect(payments.entries()).toEqual([expect.not.objectContaining({ kind: 'withdrawal' })]);
    expect(payments.entries()[0]!.status).toBe('released');
  });
});
