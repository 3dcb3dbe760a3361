// A chain pool as `priv-stark start --chain-rpc …` runs it, over an escrow of the suite's own on
// the shared node: the service in this process (facilitator, pool node, deposit watcher, payout
// sender, relayer) with one operator key for every hot role, final at 1 confirmation, polling only
// when the suite says so (the watcher's poll and the sender's pass are driven here, never on a
// wall-clock schedule). Wallets reach it over HTTP like any wallet.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

import { privStarkEscrowAbi } from '../../src/chain/contract-artifacts.js';
import {
  chainNetworkProfile,
  type ChainNetworkProfile,
  NO_EPOCH_GRID,
} from '../../src/scheme/index.js';
import { type RunningService, SERVICE_DEFAULTS, startService } from '../../src/service/index.js';
import { type EscrowFixture, escrowCall, escrowFixture, sharedChain } from './shared.js';
import { minedFrom, TEST_ESCROW_PARAMETERS } from '../../testkit/chain.js';
import { keyFileOf } from './watcher-harness.js';

/** A running chain pool. */
export interface ChainStack {
  readonly f: EscrowFixture;
  readonly service: RunningService;
  readonly poolUrl: string;
  readonly facilitatorUrl: string;
  readonly profile: ChainNetworkProfile;
  /** The operator's address (acceptor, payout, relayer, attester). */
  readonly operator: Address;
  /** The service's data directory (its SQLite file). */
  readonly dataDir: string;
  /** Polls the watcher until every deposit the escrow holds is shielded and in a checkpoint. */
  shieldAll(): Promise<void>;
  /** One payout pass (the payout sender's). */
  payoutPass(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a chain pool over a new escrow on the shared node, the relayer taking `fee`; the operator's
 * key holds the attester role too when `attester` (it is the attester key either way); the escrow
 * requires two-key payouts when `twoKeyPayouts`.
 */
export async function chainStack(
  options: { fee?: bigint; attester?: boolean; twoKeyPayouts?: boolean } = {},
): Promise<ChainStack> {
  const f = await escrowFixture(sharedChain(), {
    ...TEST_ESCROW_PARAMETERS,
    twoKeyPayouts: options.twoKeyPayouts ?? false,
  });
  const key: Hex = generatePrivateKey();
  const operator = privateKeyToAccount(key).address;
  await f.chain.test.setBalance({ address: operator, value: 10n ** 20n });
  const roles = ['ACCEPTOR_ROLE', 'PAYOUT_ROLE', ...(options.attester ? ['ATTESTER_ROLE'] : [])];
  for (const role of roles as ('ACCEPTOR_ROLE' | 'PAYOUT_ROLE' | 'ATTESTER_ROLE')[]) {
    const id = await f.chain.public.readContract({
      address: f.escrow,
      abi: privStarkEscrowAbi,
      functionName: role,
    });
    await escrowCall(f, f.admin, 'grantRole', [id, operator]);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'priv-stark-chain-stack-'));
  // The payout sender's passes are the suite's to drive.
  process.env.PAYOUT_POLL_INTERVAL_MS = '0';
  const service = await startService(
    {
      ...SERVICE_DEFAULTS,
      epoch: NO_EPOCH_GRID,
      port: 0,
      poolPort: 0,
      dataDir,
      logLevel: 'silent',
      insecureNoAuth: true,
      checkpointIntervalMs: 100,
      operatorToken: 'chain-stack-operator-token-0123456789',
      chain: {
        rpcUrl: f.chain.url,
        escrow: f.escrow,
        keyFiles: [keyFileOf(key)],
        finality: { confirmations: 1 },
        pollIntervalMs: 0,
        relayerFee: options.fee ?? 0n,
      },
    },
    () => undefined,
  );
  const profile = chainNetworkProfile(
    { chainId: f.chain.chainId, escrow: f.escrow, token: f.token },
    6,
  );
  const shieldAll = async () => {
    const count = await f.chain.public.readContract({
      address: f.escrow,
      abi: privStarkEscrowAbi,
      functionName: 'depositCount',
    });
    for (let round = 0; round < 20; round++) {
      await service.depositWatcher!.poll();
      await minedFrom(f.chain, operator);
      const state = await service.ledger.state();
      if (BigInt(state.size) >= count && (state.checkpoint?.size ?? 0) >= state.size) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the deposits were not shielded and checkpointed');
  };
  return {
    f,
    service,
    poolUrl: service.poolNodeUrl!,
    facilitatorUrl: service.facilitatorUrl!,
    profile,
    operator,
    dataDir,
    shieldAll,
    payoutPass: async () => {
      await service.payoutSender!.pass();
      await minedFrom(f.chain, operator);
    },
    async close() {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
