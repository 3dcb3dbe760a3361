// The audit bench's chain part (docs/audit-bench.md): one anvil, the test token and the escrow
// deployed from the committed artifacts, and the escrow's side of the bench's log — every deposit
// made and accepted through the escrow, every exit paid by `payout`, every claim posted by
// `attest`. Thousands of transactions are sent as JSON-RPC batches of `eth_sendTransaction` from
// impersonated accounts (anvil signs nothing; blocks are mined by hand): the contract runs each call
// as it would for a signed one, and a receipt that is not a success stops the bench.

import { type Address, encodeFunctionData, type Hex, keccak256, toHex } from 'viem';

import type { PrivateKeyAccount } from 'viem/accounts';

import type { AttestationClaim } from '../src/chain/attestation-sender.js';
import { privStarkEscrowAbi, testUsdcAbi } from '../src/chain/contract-artifacts.js';
import { type LocalNode, startLocalNode } from '../src/chain/local-node.js';
import {
  type Chain,
  connect,
  deployEscrow,
  deployTestUsdc,
  newAccount,
  send,
} from '../testkit/chain.js';
import type { ChainDeposit, LogExit } from './audit-log.js';

/** The node, the contracts and the accounts that act on them. */
export interface BenchChain {
  readonly node: LocalNode;
  readonly chain: Chain;
  readonly token: Address;
  readonly escrow: Address;
  /** Holds the acceptor, payout and attester roles. */
  readonly operator: Address;
  readonly depositor: Address;
  readonly deployBlock: number;
  /** The token's owner and the escrow's admin (a key of its own: it mints and grants). */
  readonly admin: PrivateKeyAccount;
}

/** Transactions per JSON-RPC batch. */
const BATCH = 250;
/** Deposit indexes per `acceptDeposits` (its gas grows with the batch). */
const ACCEPT_BATCH = 200;

/** One JSON-RPC batch; the results in order, or the first error thrown. */
async function rpcBatch(url: string, calls: { method: string; params: unknown[] }[]) {
  const body = calls.map((c, id) => ({ jsonrpc: '2.0', id, ...c }));
  const reply = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answers = (await reply.json()) as { id: number; result?: unknown; error?: unknown }[];
  answers.sort((a, b) => a.id - b.id);
  const failed = answers.find((a) => a.error !== undefined);
  if (failed) throw new Error(`${calls[failed.id]!.method}: ${JSON.stringify(failed.error)}`);
  return answers.map((a) => a.result);
}

/** Sends `calls` from `from` (impersonated), in order, and checks every receipt succeeded. */
export async function sendAll(
  bc: Pick<BenchChain, 'chain'>,
  from: Address,
  calls: readonly { to: Address; data: Hex; gas: bigint }[],
): Promise<void> {
  let nonce = await bc.chain.public.getTransactionCount({ address: from, blockTag: 'pending' });
  for (let at = 0; at < calls.length; at += BATCH) {
    const chunk = calls.slice(at, at + BATCH);
    const hashes = (await rpcBatch(
      bc.chain.url,
      chunk.map((c) => ({
        method: 'eth_sendTransaction',
        params: [
          {
            from,
            to: c.to,
            data: c.data,
            gas: toHex(c.gas),
            nonce: toHex(nonce++),
            maxFeePerGas: toHex(10n ** 10n),
            maxPriorityFeePerGas: '0x0',
          },
        ],
      })),
    )) as Hex[];
    // Mined by hand (automine is off: sent out of nonce order in a batch, automining left a
    // transaction unmined), block after block until the pool is empty.
    for (let blocks = 0; ; blocks++) {
      // Thousands of full blocks would raise the base fee past any fee cap (anvil then drops
      // the transaction): held at zero, gas is no part of what the bench measures.
      await rpcBatch(bc.chain.url, [
        { method: 'anvil_setNextBlockBaseFeePerGas', params: ['0x0'] },
        { method: 'evm_mine', params: [] },
      ]);
      const [status] = (await rpcBatch(bc.chain.url, [
        { method: 'txpool_status', params: [] },
      ])) as {
        pending: Hex;
        queued: Hex;
      }[];
      if (Number(status!.pending) === 0 && Number(status!.queued) === 0) break;
      if (blocks > 10_000) throw new Error(`the pool does not empty: ${JSON.stringify(status)}`);
    }
    const receipts = (await rpcBatch(
      bc.chain.url,
      hashes.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] })),
    )) as ({ status: Hex } | null)[];
    const bad = receipts.findIndex((r) => r?.status !== '0x1');
    if (bad >= 0)
      throw new Error(`transaction ${hashes[bad]} failed: ${JSON.stringify(receipts[bad])}`);
  }
}

/** Starts anvil, deploys the token and the escrow, and gives the operator its roles. */
export async function startBenchChain(): Promise<BenchChain> {
  const node = await startLocalNode();
  try {
    const chain = connect(node.url);
    const admin = await newAccount(chain, '1000');
    const token = await deployTestUsdc(chain, admin);
    const escrow = await deployEscrow(chain, admin, token);
    const deployBlock = Number(await chain.public.getBlockNumber());
    // Addresses no key makes: anvil acts for them (impersonation), funded for gas.
    const [operator, depositor] = ['operator', 'depositor'].map(
      (name) => `0x${keccak256(toHex(`audit-bench ${name}`)).slice(26)}` as Address,
    ) as [Address, Address];
    for (const address of [operator, depositor]) {
      await chain.test.impersonateAccount({ address });
      await chain.test.setBalance({ address, value: 10n ** 24n });
    }
    for (const role of ['ACCEPTOR_ROLE', 'PAYOUT_ROLE', 'ATTESTER_ROLE'] as const) {
      const id = await chain.public.readContract({
        address: escrow,
        abi: privStarkEscrowAbi,
        functionName: role,
      });
      await send(chain, admin, {
        address: escrow,
        abi: privStarkEscrowAbi,
        functionName: 'grantRole',
        args: [id, operator],
      });
    }
    // From here the bench mines by hand (sendAll), the admin's calls too.
    await chain.test.impersonateAccount({ address: admin.address });
    await chain.test.setAutomine(false);
    return { node, chain, token, escrow, operator, depositor, deployBlock, admin };
  } catch (error) {
    await node.stop();
    throw error;
  }
}

/** Deposits each `(amount, pre)` through the escrow, then accepts them all (the acceptor's job). */
export async function depositAll(bc: BenchChain, deposits: readonly ChainDeposit[]): Promise<void> {
  const total = deposits.reduce((s, d) => s + d.amount, 0n);
  await sendAll(bc, bc.admin.address, [
    {
      to: bc.token,
      data: encodeFunctionData({
        abi: testUsdcAbi,
        functionName: 'mint',
        args: [bc.depositor, total],
      }),
      gas: 200_000n,
    },
  ]);
  const escrowCall = (functionName: string, args: readonly unknown[]) =>
    encodeFunctionData({ abi: privStarkEscrowAbi, functionName, args } as never);
  await sendAll(bc, bc.depositor, [
    {
      to: bc.token,
      data: encodeFunctionData({
        abi: testUsdcAbi,
        functionName: 'approve',
        args: [bc.escrow, total],
      }),
      gas: 100_000n,
    },
    ...deposits.map((d) => ({
      to: bc.escrow,
      data: escrowCall('deposit', [d.amount, d.pre]),
      gas: 400_000n,
    })),
  ]);
  const accepts = [];
  for (let at = 0; at < deposits.length; at += ACCEPT_BATCH) {
    const indexes = Array.from({ length: Math.min(ACCEPT_BATCH, deposits.length - at) }, (_, i) =>
      BigInt(at + i),
    );
    accepts.push({
      to: bc.escrow,
      data: escrowCall('acceptDeposits', [indexes, []]),
      gas: 15_000_000n,
    });
  }
  await sendAll(bc, bc.operator, accepts);
}

/** Pays every exit on chain, as the payout sender would. */
export async function payAll(bc: BenchChain, exits: readonly LogExit[]): Promise<void> {
  // A day from the node's time (not this machine's): anvil's clock is the one `payout` reads.
  const latest = await bc.chain.public.getBlock();
  const deadline = latest.timestamp + 86_400n;
  await sendAll(
    bc,
    bc.operator,
    exits.map((x) => ({
      to: bc.escrow,
      data: encodeFunctionData({
        abi: privStarkEscrowAbi,
        functionName: 'payout',
        args: [x.withdrawalId, x.to, x.amount, deadline],
      } as never),
      gas: 300_000n,
    })),
  );
}

/** Posts each claim with `attest`, in order (the escrow refuses an older sequence). */
export async function attestAll(
  bc: BenchChain,
  claims: readonly AttestationClaim[],
): Promise<void> {
  await sendAll(
    bc,
    bc.operator,
    claims.map((c) => ({
      to: bc.escrow,
      data: encodeFunctionData({
        abi: privStarkEscrowAbi,
        functionName: 'attest',
        args: [BigInt(c.seq), c.root, c.logDigest, c.totals, c.unpaidRoot],
      } as never),
      gas: 500_000n,
    })),
  );
}
