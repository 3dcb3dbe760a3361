// The pool node's attester on the shared node (docs/audit.md, "Attestations"): `priv-stark pool
// attest`'s route posts the latest checkpoint's claim — its sequence and root, the log digest the
// node recorded for it, the totals as of it and the unpaid withdrawals' root — and the escrow
// keeps exactly that; asked again with no new checkpoint it sends nothing. Must-fail twins: a key
// without the attester role is refused (502 attestation_failed, nothing kept), and a pool node
// without an attester answers 409 no_attester.

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Hex } from 'viem';

import { EMPTY_UNPAID_ROOT } from '../../src/chain/unpaid-withdrawals.js';
import { poolCommand } from '../../src/cli/pool.js';
import { PoolNodeClient, PoolNodeError } from '../../src/pool-node/index.js';
import { type ChainStack, chainStack } from './chain-stack.js';
import { depositDirect, depositor, escrowRead, tickets } from './shared.js';

const TOKEN = 'chain-stack-operator-token-0123456789';

interface Latest {
  seq: bigint;
  root: Hex;
  logDigest: Hex;
  unpaidRoot: Hex;
  totals: readonly bigint[];
}

/** `priv-stark pool attest --json` against the stack: its exit code and its stdout lines. */
async function attestCommand(stack: ChainStack): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    const code = await poolCommand(['attest', '--json', '--url', stack.poolUrl, '--token', TOKEN]);
    return { code, lines };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

/** Two deposits through the escrow, shielded and checkpointed. */
async function deposit(stack: ChainStack): Promise<bigint> {
  const payer = await depositor(stack.f, 10_000_000n);
  let total = 0n;
  for (const t of await tickets([1_500_000n, 2_500_000n])) {
    await depositDirect(stack.f, payer, t.amount, t.pre);
    total += t.amount;
  }
  await stack.shieldAll();
  return total;
}

describe('the attester', () => {
  let stack: ChainStack;
  beforeAll(async () => {
    stack = await chainStack({ attester: true });
  });
  afterAll(() => stack?.close());

  it('posts the latest checkpoint’s claim, kept as the escrow’s latest; sends nothing again for it', async () => {
    const operator = new PoolNodeClient(stack.poolUrl, { token: TOKEN });
    expect((await operator.attest()).outcome).toBe('no_checkpoint');
    const deposited = await deposit(stack);
    const report = await operator.attest();
    const state = await stack.service.ledger.publishedState();
    const [recorded] = await stack.service.ledger.store.logDigests(state.checkpoint!.seq - 1, 1);
    expect(report).toMatchObject({
      outcome: 'attested',
      seq: state.checkpoint!.seq,
      root: state.checkpoint!.root,
      logDigest: recorded!.digest,
      unpaidRoot: EMPTY_UNPAID_ROOT,
      unpaid: 0,
      totals: { deposited: deposited.toString(), withdrawn: '0', paidOut: '0', refunded: '0' },
    });
    expect(report.tx).toMatch(/^0x[0-9a-f]{64}$/);
    expect(report.gasUsed).toBeGreaterThan(0);
    const latest = await escrowRead<Latest>(stack.f, 'latestAttestation');
    expect({ ...latest, seq: Number(latest.seq) }).toMatchObject({
      seq: report.seq,
      root: report.root,
      logDigest: report.logDigest,
      unpaidRoot: report.unpaidRoot,
      totals: [deposited, 0n, 0n, 0n],
    });
    // The same checkpoint again: answered from the escrow, nothing sent.
    const block = await stack.f.chain.public.getBlockNumber();
    const again = await operator.attest();
    expect(again).toMatchObject({ outcome: 'already_attested', seq: report.seq, tx: null });
    expect(await stack.f.chain.public.getBlockNumber()).toBe(block);
    // More deposits, a later checkpoint: `priv-stark pool attest --json` posts it.
    const more = await deposit(stack);
    const { code, lines } = await attestCommand(stack);
    expect(code).toBe(0);
    expect(lines).toHaveLength(1);
    const posted = JSON.parse(lines[0]!);
    expect(posted).toMatchObject({
      outcome: 'attested',
      totals: { deposited: String(deposited + more) },
    });
    expect(posted.seq).toBeGreaterThan(report.seq);
    expect(Number((await escrowRead<Latest>(stack.f, 'latestAttestation')).seq)).toBe(posted.seq);
  });
});

describe('must-fail twins', () => {
  it('a key without the attester role: 502 attestation_failed, and the escrow keeps nothing', async () => {
    const stack = await chainStack();
    try {
      await deposit(stack);
      const refused = await new PoolNodeClient(stack.poolUrl, { token: TOKEN })
        .attest()
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(PoolNodeError);
      expect(refused).toMatchObject({ code: 'attestation_failed', status: 502 });
      expect((refused as Error).message).toMatch(/attestation_refused/);
      expect((await escrowRead<Latest>(stack.f, 'latestAttestation')).seq).toBe(0n);
      // The command: exit 1, the refusal as its one JSON line.
      const { code, lines } = await attestCommand(stack);
      expect(code).toBe(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ error: 'attestation_failed' });
    } finally {
      await stack.close();
    }
  });
});
