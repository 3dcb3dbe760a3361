// `priv-stark audit` against a chain pool on the shared node, as anyone runs it: no secret, the
// pool node's public routes and the auditor's own RPC. A real pool — deposits through the escrow, a
// wallet's exit paid out on chain, the attester's claim — audits clean (exit 0, checked up to the
// attestation). Must-fail twins, one per chain code, each tampering the real store or the chain:
// a payout the operator's payout key sends for no withdrawal, a deposit row written straight into
// the store, a deposit accepted on chain and never shielded, a declined deposit shielded, a
// shielded amount that is not the deposit's, a payout to another account than the withdrawal's,
// and a withdrawal both paid and refunded — each found under its code (exit 1). An audit that cannot
// complete — the pool node unreachable, or a page that is not its route's — exits 2.

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createPublicClient, type Hex, http, keccak256, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { findDeployBlock } from '../../src/chain/chain-binding.js';
import { readChainFacts } from '../../src/chain/chain-audit.js';
import { type AuditReport, auditCommand } from '../../src/cli/audit.js';
import { Wallet } from '../../src/client/index.js';
import { commitmentOf } from '../../src/core/witness.js';
import { loadCore, type PrivStarkCore, randomDigest } from '../../src/core/index.js';
import { PoolNodeClient } from '../../src/pool-node/index.js';
import { newAccount } from '../../testkit/chain.js';
import { depositOp } from '../ledger/helpers/ops.js';
import { type ChainStack, chainStack } from './chain-stack.js';
import {
  depositDirect,
  depositIndexOf,
  depositor,
  escrowCall,
  escrowRead,
  tokenCall,
} from './shared.js';

const TOKEN = 'chain-stack-operator-token-0123456789';

let core: PrivStarkCore;
let stack: ChainStack;
let wallet: Wallet;
let rogue: Awaited<ReturnType<typeof newAccount>>;

async function audit(...extra: string[]): Promise<{ code: number; report: AuditReport }> {
  const out: string[] = [];
  const code = await auditCommand(
    [
      '--rpc',
      stack.f.chain.url,
      '--escrow',
      stack.f.escrow,
      '--pool',
      stack.poolUrl,
      '--json',
      ...extra,
    ],
    { out: (l) => out.push(l), err: (l) => out.push(l) },
  );
  return { code, report: JSON.parse(out[0]!) as AuditReport };
}

/** The exit code of an audit that prints no report (exit 2 writes one line to stderr). */
async function exitOf(...extra: string[]): Promise<number> {
  const args = ['--rpc', stack.f.chain.url, '--escrow', stack.f.escrow, '--pool', stack.poolUrl];
  return auditCommand([...args, ...extra], { out: () => undefined, err: () => undefined });
}

const codes = (report: AuditReport) => report.findings.map((f) => f.code);

/** A deposit straight into the escrow by a new depositor: its index, amount and `pre`. */
async function escrowDeposit(amount: bigint) {
  const payer = await depositor(stack.f, amount);
  const pre = randomDigest() as Hex;
  await tokenCall(stack.f, payer, 'approve', [stack.f.escrow, amount]);
  const index = depositIndexOf(await escrowCall(stack.f, payer, 'deposit', [amount, pre]));
  return { index, amount, pre };
}

/** Grants `role` to the rogue account (the operator's own hot key, stolen or misused). */
async function grant(role: 'ACCEPTOR_ROLE' | 'PAYOUT_ROLE') {
  const id = await escrowRead<Hex>(stack.f, role);
  await escrowCall(stack.f, stack.f.admin, 'grantRole', [id, rogue.address]);
}

const deadline = () => BigInt(Math.floor(Date.now() / 1000) + 3600);

beforeAll(async () => {
  core = await loadCore();
  stack = await chainStack({ attester: true });
  rogue = await newAccount(stack.f.chain);
  wallet = await Wallet.create({ core, pool: stack.poolUrl, network: stack.profile });
  const payer = await depositor(stack.f, 10_000_000n);
  for (const amount of [3_000_000n, 2_000_000n]) {
    const ticket = await wallet.depositTicket(amount.toString());
    await depositDirect(stack.f, payer, amount, ticket.pre as Hex);
  }
  await stack.shieldAll();
  await wallet.sync();
  await wallet.exit(
    `eip155:31337:${privateKeyToAccount(generatePrivateKey()).address}`,
    500_000n,
    {},
  );
  await stack.service.ledger.checkpoint();
  await stack.payoutPass();
  await stack.service.ledger.checkpoint();
});
afterAll(() => stack?.close());

describe('an audit that cannot complete exits 2, never 0', () => {
  it('a pool node that does not answer, or answers pages that are not its routes’', async () => {
    const io = () => {
      const err: string[] = [];
      return { err, io: { out: (l: string) => err.push(l), err: (l: string) => err.push(l) } };
    };
    const args = (pool: string) => [
      '--rpc',
      stack.f.chain.url,
      '--escrow',
      stack.f.escrow,
      '--pool',
      pool,
    ];
    const gone = io();
    expect(await auditCommand(args('http://127.0.0.1:9'), gone.io)).toBe(2);
    expect(gone.err.join('\n')).toMatch(/pool_unreachable/);
    // An RPC that does not answer: one line with its stable code, never viem's report.
    const noRpc = io();
    const withRpc = ['--rpc', 'http://127.0.0.1:9', ...args(stack.poolUrl).slice(2)];
    expect(await auditCommand(withRpc, noRpc.io)).toBe(2);
    expect(noRpc.err).toHaveLength(1);
    expect(noRpc.err[0]).toMatch(/^priv-stark audit: rpc_unreachable: /);
    const junk = createServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          events: [{ id: 1, kind: 'deposit', amount: 'x' }],
          checkpoints: [],
          leaves: [],
          digests: [],
          proofs: [],
          prunedThrough: 0,
          legacyThrough: 0,
        }),
      );
    });
    await new Promise<void>((resolve) => junk.listen(0, '127.0.0.1', resolve));
    try {
      const hostile = io();
      const url = `http://127.0.0.1:${(junk.address() as AddressInfo).port}`;
      expect(await auditCommand(args(url), hostile.io)).toBe(2);
      // Before any attestation: the log is read, and its page does not parse.
      expect(hostile.err).toHaveLength(1);
      expect(hostile.err[0]).toMatch(/^priv-stark audit: could not complete: /);
    } finally {
      await new Promise((resolve) => junk.close(resolve));
    }
  });
});

describe('priv-stark audit', () => {
  it('a real pool audits clean up to its attestation (exit 0)', async () => {
    const posted = await new PoolNodeClient(stack.poolUrl, { token: TOKEN }).attest();
    expect(posted.outcome).toBe('attested');
    const { code, report } = await audit();
    expect(report.findings).toEqual([]);
    expect(report).toMatchObject({
      ok: true,
      checkedUpTo: { seq: posted.seq, block: posted.block },
    });
    expect(code).toBe(0);
  });

  it('--state: the next audit resumes after the last attestation checked; --full reads it all', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'priv-stark-audit-state-'));
    try {
      const state = join(dir, 'state.json');
      const first = await audit('--state', state);
      expect(first.code).toBe(0);
      expect(first.report.resumedAfter).toBeUndefined();
      expect(existsSync(state)).toBe(true);
      // More history and a newer attestation: the resumed audit starts after the first one.
      await stack.shieldAll();
      await escrowDeposit(1_111_000n);
      await stack.shieldAll();
      await stack.service.ledger.checkpoint();
      const posted = await new PoolNodeClient(stack.poolUrl, { token: TOKEN }).attest();
      const resumed = await audit('--state', state);
      expect(resumed.code).toBe(0);
      expect(resumed.report).toMatchObject({
        ok: true,
        resumedAfter: first.report.checkedUpTo?.seq,
        checkedUpTo: { seq: posted.seq },
      });
      const full = await audit('--state', state, '--full');
      expect(full.code).toBe(0);
      expect(full.report.resumedAfter).toBeUndefined();
      expect(full.report.tail).toEqual(resumed.report.tail);
      // Must-fail: a state kept for another escrow is refused, and the audit does not complete.
      const kept = JSON.parse(readFileSync(state, 'utf8')) as { escrow: string };
      writeFileSync(state, JSON.stringify({ ...kept, escrow: `0x${'12'.repeat(20)}` }));
      expect(await exitOf('--state', state)).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--compare: two auditors agree on the tail; a report that differs is a split_view (exit 1)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'priv-stark-audit-compare-'));
    try {
      const mine = await audit();
      expect(mine.report.tail.length).toBeGreaterThan(0);
      const other = join(dir, 'other.json');
      writeFileSync(other, JSON.stringify(mine.report));
      const agreed = await audit('--compare', other);
      expect(agreed.code).toBe(0);
      expect(agreed.report.compared).toBeGreaterThan(0);
      const last = mine.report.tail.at(-1)!;
      const differing = {
        ...mine.report,
        tail: [...mine.report.tail.slice(0, -1), { ...last, logDigest: `0x${'ee'.repeat(32)}` }],
      };
      writeFileSync(other, JSON.stringify(differing));
      const split = await audit('--compare', other);
      expect(split.code).toBe(1);
      expect(codes(split.report)).toEqual(['split_view']);
      // Must-fail: something that is no report, or no file, is no comparison (exit 2).
      writeFileSync(other, '{"ok":true}');
      expect(await exitOf('--compare', other)).toBe(2);
      expect(await exitOf('--compare', join(dir, 'missing.json'))).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('must-fail twins: each tampering of the store or the chain is found under its code', () => {
  it('a payout the payout key sends for no withdrawal: payout_without_withdrawal', async () => {
    await grant('PAYOUT_ROLE');
    const id = keccak256(toHex('no such withdrawal'));
    await escrowCall(stack.f, rogue, 'payout', [id, rogue.address, 1000n, deadline()]);
    const { code, report } = await audit();
    expect(codes(report)).toContain('payout_without_withdrawal');
    expect(code).toBe(1);
  });

  it('a deposit row written straight into the store: unbacked_deposit', async () => {
    await stack.service.ledger.store.apply([depositOp({ amount: '777000' })], Date.now());
    await stack.service.ledger.checkpoint();
    expect(codes((await audit()).report)).toContain('unbacked_deposit');
  });

  it('a deposit accepted on chain and never shielded: unshielded_accepted_deposit past the deadline', async () => {
    await grant('ACCEPTOR_ROLE');
    const d = await escrowDeposit(1_234_000n);
    await escrowCall(stack.f, rogue, 'acceptDeposits', [[d.index], []]);
    const within = (await audit()).report;
    expect(codes(within)).not.toContain('unshielded_accepted_deposit');
    expect(codes((await audit('--shield-deadline', '0')).report)).toContain(
      'unshielded_accepted_deposit',
    );
  });

  it('a declined deposit shielded: shielded_reclaimed_deposit; a shielded amount not the deposit’s: deposit_mismatch', async () => {
    const declined = await escrowDeposit(2_345_000n);
    await escrowCall(stack.f, rogue, 'acceptDeposits', [[], [declined.index]]);
    const accepted = await escrowDeposit(3_456_000n);
    await escrowCall(stack.f, rogue, 'acceptDeposits', [[accepted.index], []]);
    const cm = (d: { amount: bigint; pre: Hex }) => commitmentOf(core, d.amount.toString(), d.pre);
    await stack.service.ledger.store.apply(
      [
        depositOp({ amount: declined.amount.toString(), commitment: cm(declined) }),
        depositOp({ amount: '9999999', commitment: cm(accepted) }),
      ],
      Date.now(),
    );
    await stack.service.ledger.checkpoint();
    const found = codes((await audit()).report);
    expect(found).toContain('shielded_reclaimed_deposit');
    expect(found).toContain('deposit_mismatch');
  });

  it('a payout to another account than the withdrawal’s: payout_mismatch; then refunded too: paid_and_refunded', async () => {
    await wallet.sync();
    const exit = await wallet.exit(
      `eip155:31337:${privateKeyToAccount(generatePrivateKey()).address}`,
      400_000n,
    );
    await stack.service.ledger.checkpoint();
    await escrowCall(stack.f, rogue, 'payout', [
      exit.transaction as Hex,
      rogue.address,
      400_000n,
      deadline(),
    ]);
    expect(codes((await audit()).report)).toContain('payout_mismatch');
    await stack.service.ledger.store.apply(
      [{ kind: 'payout', withdrawalId: exit.transaction, status: 'paying' }],
      Date.now(),
    );
    await stack.service.ledger.store.apply(
      [{ kind: 'payout', withdrawalId: exit.transaction, status: 'failed' }],
      Date.now(),
    );
    await stack.service.ledger.checkpoint();
    const { code, report } = await audit();
    expect(codes(report)).toContain('paid_and_refunded');
    expect(code).toBe(1);
  });
});

describe("the escrow's logs, read from an RPC that refuses wide ranges", () => {
  /** A client of the shared node whose eth_getLogs over more than `span` blocks is refused. */
  function narrowClient(span: number) {
    const refused = { count: 0 };
    const fetchFn: typeof fetch = async (input, init) => {
      const call = JSON.parse(String(init?.body)) as {
        id: number;
        method: string;
        params: { fromBlock: Hex; toBlock: Hex }[];
      };
      const range = call.method === 'eth_getLogs' ? call.params[0]! : null;
      if (range && Number(BigInt(range.toBlock) - BigInt(range.fromBlock)) >= span) {
        refused.count++;
        const error = { code: -32005, message: 'query returned more than 10000 results' };
        return new Response(JSON.stringify({ jsonrpc: '2.0', id: call.id, error }), {
          headers: { 'content-type': 'application/json' },
        });
      }
      return fetch(input, init);
    };
    return {
      refused,
      client: createPublicClient({ transport: http(stack.f.chain.url, { fetchFn }) }),
    };
  }

  it('reads every range again in halves and gets what one wide read gets', async () => {
    const whole = createPublicClient({ transport: http(stack.f.chain.url) });
    const from = await findDeployBlock(whole, stack.f.escrow);
    const { refused, client } = narrowClient(4);
    const [narrow, wide] = [
      await readChainFacts(client, stack.f.escrow, from),
      await readChainFacts(whole, stack.f.escrow, from),
    ];
    expect(refused.count).toBeGreaterThan(0);
    const { block: _n, time: _t, ...narrowFacts } = narrow;
    const { block: _w, time: _u, ...wideFacts } = wide;
    expect(narrowFacts.deposits.length).toBeGreaterThan(0);
    expect(narrowFacts).toEqual(wideFacts);
  });

  it('must-fail: an RPC that refuses every read fails the read after a bounded number of halvings', async () => {
    const whole = createPublicClient({ transport: http(stack.f.chain.url) });
    const from = await findDeployBlock(whole, stack.f.escrow);
    const { refused, client } = narrowClient(0);
    await expect(readChainFacts(client, stack.f.escrow, from)).rejects.toMatchObject({
      code: 'rpc_error',
    });
    expect(refused.count).toBeLessThanOrEqual(2 * 64 + 1);
  });
});
