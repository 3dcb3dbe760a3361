// The escrow's attestations (contracts/src/PoolAttestations.sol), on the shared node: the attester
// posts the operator's claim at a checkpoint — kept as the latest, announced with the attester's
// address — and every refusal beside the call that passes: not the attester (any other role, the
// admin, a stranger, a revoked attester), a sequence not later than the latest (repeated, older,
// zero). A pause stops funds, not claims.

import { type Hex, parseEventLogs } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';

import { privStarkEscrowAbi } from '../../src/chain/contract-artifacts.js';
import { randomDigest } from '../../src/core/witness.js';
import { newAccount, revertOf } from '../../testkit/chain.js';
import {
  type EscrowFixture,
  escrowCall,
  escrowFixture,
  escrowRead,
  sharedChain,
} from './shared.js';

type Account = Awaited<ReturnType<typeof newAccount>>;

let f: EscrowFixture;
let attester: Account;
let role: Hex;

beforeAll(async () => {
  f = await escrowFixture(sharedChain());
  attester = await newAccount(f.chain);
  role = await escrowRead<Hex>(f, 'ATTESTER_ROLE');
  await escrowCall(f, f.admin, 'grantRole', [role, attester.address]);
});

/** An attestation of checkpoint `seq`: its root, log digest, totals and unpaid root. */
const claim = (seq: bigint) =>
  [
    seq,
    randomDigest(),
    randomDigest(),
    [1_000_000n + seq, 400_000n, 300_000n, 1_000n],
    randomDigest(),
  ] as const;

interface Latest {
  seq: bigint;
  attestedAt: number;
  root: Hex;
  logDigest: Hex;
  unpaidRoot: Hex;
  totals: readonly bigint[];
}

describe('attestations', () => {
  it('keeps the attester’s claim as the latest and announces it with the attester’s address', async () => {
    expect((await escrowRead<Latest>(f, 'latestAttestation')).seq).toBe(0n);
    const [seq, root, logDigest, totals, unpaidRoot] = claim(7n);
    const receipt = await escrowCall(f, attester, 'attest', [
      seq,
      root,
      logDigest,
      totals,
      unpaidRoot,
    ]);
    const [event] = parseEventLogs({
      abi: privStarkEscrowAbi,
      logs: receipt.logs,
      eventName: 'Attested',
    });
    expect(event?.args).toEqual({
      seq,
      attester: attester.address,
      root,
      logDigest,
      unpaidRoot,
      totals,
    });
    const latest = await escrowRead<Latest>(f, 'latestAttestation');
    expect(latest).toMatchObject({ seq, root, logDigest, unpaidRoot, totals });
    const block = await f.chain.public.getBlock({ blockNumber: receipt.blockNumber });
    expect(BigInt(latest.attestedAt)).toBe(block.timestamp);
  });

  it('refuses a sequence not later than the latest: repeated, older, zero — and takes a later one', async () => {
    const latest = (await escrowRead<Latest>(f, 'latestAttestation')).seq;
    for (const seq of [latest, latest - 1n, 0n]) {
      const revert = await revertOf(
        escrowCall(f, attester, 'attest', [...claim(seq)]),
        privStarkEscrowAbi,
      );
      expect(revert).toMatchObject({ name: 'AttestationNotNewer', args: [seq, latest] });
    }
    await escrowCall(f, attester, 'attest', [...claim(latest + 1n)]);
    expect((await escrowRead<Latest>(f, 'latestAttestation')).seq).toBe(latest + 1n);
  });

  it('refuses anyone but the attester: the other roles, the admin, a stranger, a revoked attester', async () => {
    const latest = (await escrowRead<Latest>(f, 'latestAttestation')).seq;
    const stranger = await newAccount(f.chain);
    for (const who of [f.admin, f.acceptor, f.payer, f.pauser, stranger]) {
      const revert = await revertOf(
        escrowCall(f, who, 'attest', [...claim(latest + 1n)]),
        privStarkEscrowAbi,
      );
      expect(revert).toMatchObject({
        name: 'AccessControlUnauthorizedAccount',
        args: [who.address, role],
      });
    }
    const revoked = await newAccount(f.chain);
    await escrowCall(f, f.admin, 'grantRole', [role, revoked.address]);
    await escrowCall(f, f.admin, 'revokeRole', [role, revoked.address]);
    const revert = await revertOf(
      escrowCall(f, revoked, 'attest', [...claim(latest + 1n)]),
      privStarkEscrowAbi,
    );
    expect(revert).toMatchObject({ name: 'AccessControlUnauthorizedAccount' });
    expect((await escrowRead<Latest>(f, 'latestAttestation')).seq).toBe(latest);
  });

  it('goes on while the escrow is paused: a pause stops funds, not claims', async () => {
    const latest = (await escrowRead<Latest>(f, 'latestAttestation')).seq;
    await escrowCall(f, f.pauser, 'pause');
    try {
      await escrowCall(f, attester, 'attest', [...claim(latest + 1n)]);
      expect((await escrowRead<Latest>(f, 'latestAttestation')).seq).toBe(latest + 1n);
    } finally {
      await escrowCall(f, f.pauser, 'unpause');
    }
  });
});
