// The pool node's chain routes on a real node (the shared anvil): GET /chain tells what backs the
// pool; POST /relay/deposit sends a signed gasless deposit as the relayer — the depositor pays
// amount + fee, the escrow holds the amount, the relayer gets the fee, checked on chain before and
// after — and refuses everything else with a stable 4xx, nothing moved: a fee below the advertised
// one, a ticket deposited already (the retry), a signature not the depositor's, an expired
// window, a precommitment no note holds, hostile bodies of any shape (never a 5xx); a relayer
// without gas answers 503 relay_unavailable; POST /relay/reclaim returns a declined deposit by the
// depositor's signature, and refuses another's; the routes are rate-limited per client.

import fc from 'fast-check';
import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { POOL_NODE_REASONS } from '../../src/scheme/index.js';
import { newAccount, now, signReclaim } from '../../testkit/chain.js';
import { balances, type RelayPool, relayDepositBody, relayPool } from './relay-harness.js';
import { depositor, escrowCall, readDeposit, STATE, tickets } from './shared.js';

const FEE = 1000n;

let core: PrivStarkCore;
let pool: RelayPool;
let noGas: RelayPool;

beforeAll(async () => {
  core = await loadCore();
  pool = await relayPool(core, { fee: FEE, limits: { max: 1000, timeWindowMs: 60_000 } });
  noGas = await relayPool(core, { fee: FEE, relayerEther: '0', fixture: pool.f });
}, 120_000);

afterAll(async () => {
  await pool?.close();
  await noGas?.close();
});

/** A signed gasless deposit's body for `from`, fields as the wallet sends them. */
function body(
  from: PrivateKeyAccount,
  deposit: { amount: bigint; pre: Hex; value?: bigint },
  options: { signer?: PrivateKeyAccount; validBefore?: bigint } = {},
) {
  return relayDepositBody(pool.f, FEE, from, deposit, options);
}

async function post(url: string, path: string, payload: unknown, raw = false) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: raw ? String(payload) : JSON.stringify(payload),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('GET /chain', () => {
  it("names the chain, the escrow, the token and its domain, the pool's network and the relayer's fee", async () => {
    const response = await fetch(`${pool.url}/chain`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      chainId: 31337,
      escrow: pool.f.escrow,
      token: pool.f.token,
      decimals: 6,
      tokenDomain: { name: 'USD Coin', version: '2' },
      network: pool.profile.network,
      asset: pool.profile.asset,
      minDeposit: '1',
      reclaimDelay: 86_400,
      relayer: { address: pool.relayer.address, fee: FEE.toString() },
    });
  });
});

describe('POST /relay/deposit', () => {
  it('moves amount + fee from the depositor: the amount to the escrow, the fee to the relayer; a retry of the ticket moves nothing', async () => {
    const [ticket] = await tickets([250_000n]);
    const from = await depositor(pool.f, 1_000_000n);
    const before = await balances(pool.f, from.address, pool.f.escrow, pool.relayer.address);
    const signed = await body(from, ticket!);
    const first = await post(pool.url, '/relay/deposit', signed);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ mined: true, transaction: expect.stringMatching(/^0x/) });
    const after = await balances(pool.f, from.address, pool.f.escrow, pool.relayer.address);
    expect(after).toEqual([before[0]! - 251_000n, before[1]! + 250_000n, before[2]! + FEE]);
    const index = BigInt(first.body.depositIndex as number);
    expect(await readDeposit(pool.f, index)).toMatchObject({
      depositor: from.address,
      amount: 250_000n,
      pre: ticket!.pre,
      state: STATE.Pending,
    });
    // The same signed ticket again, and a fresh signature of it with a higher fee: once.
    const again = await post(pool.url, '/relay/deposit', signed);
    expect(again).toMatchObject({ status: 409, body: { error: 'deposit_exists' } });
    const higher = await post(
      pool.url,
      '/relay/deposit',
      await body(from, { ...ticket!, value: ticket!.amount + 5n * FEE }),
    );
    expect(higher).toMatchObject({ status: 409, body: { error: 'deposit_exists' } });
    expect(await balances(pool.f, from.address, pool.f.escrow, pool.relayer.address)).toEqual(
      after,
    );
    // The relayer logs the transaction's hash, never the signature or the signed bytes.
    const log = pool.logged.join('\n');
    expect(log).toContain(first.body.transaction as string);
    expect(log).not.toContain(signed.signature.slice(2));
    const sent = await pool.f.chain.public.getTransaction({
      hash: first.body.transaction as `0x${string}`,
    });
    expect(log).not.toContain(sent.input.slice(2, 200));
    // Sent with half again its estimate (src/chain/gas-limit.ts): a state change mined between the
    // estimate and its block cannot run it out of gas (viem's own limit is the bare estimate).
    const receipt = await pool.f.chain.public.getTransactionReceipt({ hash: sent.hash });
    expect(sent.gas).toBeGreaterThanOrEqual((receipt.gasUsed * 14n) / 10n);
  });

  it('refuses with a stable reason and moves nothing: fee too low, another signer, expired, a precommitment no note holds', async () => {
    const [a, b, c] = await tickets([10_000n, 20_000n, 30_000n]);
    const from = await depositor(pool.f, 1_000_000n);
    const stranger = await newAccount(pool.f.chain);
    const before = await balances(pool.f, from.address, pool.f.escrow, pool.relayer.address);
    const t = await now(pool.f.chain);
    const cases: [string, unknown, number, string][] = [
      [
        'fee below the advertised one',
        await body(from, { ...a!, value: a!.amount + FEE - 1n }),
        422,
        'relay_fee_too_low',
      ],
      [
        'value below the amount',
        await body(from, { ...a!, value: a!.amount - 1n }),
        422,
        'relay_fee_too_low',
      ],
      [
        "another account's signature",
        await body(from, b!, { signer: stranger }),
        422,
        'authorization_invalid',
      ],
      [
        'an expired window',
        await body(from, c!, { validBefore: t - 1n }),
        422,
        'authorization_expired',
      ],
      [
        'a precommitment no note holds',
        await body(from, { amount: 40_000n, pre: `0x${'ff'.repeat(32)}` }),
        422,
        'deposit_refused',
      ],
    ];
    for (const [what, payload, status, error] of cases) {
      const response = await post(pool.url, '/relay/deposit', payload);
      expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBe(status);
      expect(response.body.error, `${what}: ${String(response.body.message)}`).toBe(error);
      expect(Object.keys(response.body).sort(), what).toEqual(['error', 'message']);
    }
    expect(await balances(pool.f, from.address, pool.f.escrow, pool.relayer.address)).toEqual(
      before,
    );
  });

  it('answers hostile bodies with a stable 4xx, never a 5xx', async () => {
    const valid = await body(await depositor(pool.f, 10n), (await tickets([5n]))[0]!);
    const known = new Set([
      ...Object.keys(POOL_NODE_REASONS),
      'invalid_request',
      'payload_too_large',
      'unsupported_media_type',
    ]);
    const check = async (payload: unknown, raw = false) => {
      const response = await post(pool.url, '/relay/deposit', payload, raw);
      expect(response.status, JSON.stringify(response.body)).toBeGreaterThanOrEqual(400);
      expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
      expect(known.has(String(response.body.error)), String(response.body.error)).toBe(true);
    };
    for (const payload of [
      {},
      null,
      [],
      'x',
      { ...valid, extra: 1 },
      { ...valid, amount: '-1' },
      { ...valid, amount: '01' },
      { ...valid, amount: 1 },
      { ...valid, value: '9'.repeat(400) },
      { ...valid, from: '0x1234' },
      { ...valid, pre: '0x12' },
      { ...valid, signature: '0x' },
      { ...valid, signature: `0x${'ab'.repeat(3000)}` },
      { ...valid, signature: `0x${'00'.repeat(65)}` },
      { ...valid, validBefore: '99999999999' },
      { ...valid, __proto__: { a: 1 } },
    ])
      await check(payload);
    await check('{"from":', true);
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          from: fc.oneof(fc.constant(valid.from), fc.string()),
          amount: fc.oneof(fc.constant(valid.amount), fc.string(), fc.nat().map(String)),
          pre: fc.oneof(fc.constant(valid.pre), fc.string()),
          value: fc.oneof(fc.constant(valid.value), fc.nat().map(String)),
          validAfter: fc.oneof(fc.constant(valid.validAfter), fc.nat().map(String)),
          validBefore: fc.oneof(fc.constant(valid.validBefore), fc.nat().map(String)),
          signature: fc.oneof(
            fc.constant(valid.signature),
            fc
              .uint8Array({ minLength: 1, maxLength: 80 })
              .map((b) => `0x${Buffer.from(b).toString('hex')}`),
          ),
        }),
        async (payload) => check(payload),
      ),
      { numRuns: 25 },
    );
  });

  it('a relayer without gas answers 503 relay_unavailable and moves nothing', async () => {
    const [ticket] = await tickets([60_000n]);
    const from = await depositor(pool.f, 100_000n);
    const before = await balances(pool.f, from.address, pool.f.escrow);
    const response = await post(noGas.url, '/relay/deposit', await body(from, ticket!));
    expect(response).toMatchObject({ status: 503, body: { error: 'relay_unavailable' } });
    expect(await balances(pool.f, from.address, pool.f.escrow)).toEqual(before);
  });
});

describe('POST /relay/reclaim', () => {
  it("returns a declined deposit to its depositor by its signature; another's signature is refused", async () => {
    const [ticket] = await tickets([70_000n]);
    const from = await depositor(pool.f, 100_000n);
    const sent = await post(pool.url, '/relay/deposit', await body(from, ticket!));
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const index = BigInt(sent.body.depositIndex as number);
    await escrowCall(pool.f, pool.f.acceptor, 'acceptDeposits', [[], [index]]);
    const deadline = (await now(pool.f.chain)) + 600n;
    const stranger = await newAccount(pool.f.chain);
    const forged = await signReclaim(pool.f.chain, stranger, pool.f.escrow, index, deadline);
    const refused = await post(pool.url, '/relay/reclaim', {
      index: index.toString(),
      deadline: deadline.toString(),
      signature: forged,
    });
    expect(refused).toMatchObject({ status: 422, body: { error: 'reclaim_refused' } });
    const before = await balances(pool.f, from.address, pool.f.escrow, pool.relayer.address);
    const signature = await signReclaim(pool.f.chain, from, pool.f.escrow, index, deadline);
    const reclaimed = await post(pool.url, '/relay/reclaim', {
      index: index.toString(),
      deadline: deadline.toString(),
      signature,
    });
    expect(reclaimed.status, JSON.stringify(reclaimed.body)).toBe(200);
    expect(await balances(pool.f, from.address, pool.f.escrow, pool.relayer.address)).toEqual([
      before[0]! + 70_000n,
      before[1]! - 70_000n,
      before[2]!,
    ]);
    expect((await readDeposit(pool.f, index)).state).toBe(STATE.Reclaimed);
    const twice = await post(pool.url, '/relay/reclaim', {
      index: index.toString(),
      deadline: deadline.toString(),
      signature,
    });
    expect(twice).toMatchObject({ status: 422, body: { error: 'reclaim_refused' } });
  });
});

describe('the rate limit', () => {
  it('refuses a client past the limit with 429 rate_limited', async () => {
    const limited = await relayPool(core, {
      fixture: pool.f,
      limits: { max: 2, timeWindowMs: 60_000 },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await post(limited.url, '/relay/reclaim', {})).status);
      expect(statuses).toEqual([400, 400, 429]);
    } finally {
      await limited.close();
    }
  });
});
