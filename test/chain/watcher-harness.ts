// The deposit watcher's suites: a real escrow on a real node, a real ledger over a fresh SQLite
// store with the watcher's state beside it, and the watcher itself with no timer — each test polls
// it when it chooses and mines blocks on demand, so nothing waits on a wall-clock schedule.

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Hex } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';

import { checkChain } from '../../src/chain/chain-binding.js';
import { privStarkEscrowAbi } from '../../src/chain/contract-artifacts.js';
import type { DenyList } from '../../src/chain/deny-list.js';
import { DepositWatcher, type DepositWatcherOptions } from '../../src/chain/deposit-watcher.js';
import { DEFAULT_FINALITY, type Finality } from '../../src/chain/finality.js';
import { GasBalances } from '../../src/chain/gas-balances.js';
import { type ChainClients, chainClients } from '../../src/chain/rpc-client.js';
import { journalLease } from '../../src/chain/watcher-lease.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import {
  type DepositWatchStore,
  Ledger,
  openDepositWatch,
  openStore,
  type PoolStore,
  type WatchedState,
  watchSource,
} from '../../src/ledger/index.js';
import { openPayoutJournal } from '../../src/ledger/open-payout-journal.js';
import { ledgerDepositSink } from '../../src/pool-node/deposit-sink.js';
import { type Chain, minedFrom } from '../../testkit/chain.js';
import { type EscrowFixture, escrowCall, escrowFixture, gaslessArgs } from './shared.js';
import { scratchDir } from '../scratch-dir.js';

let core: Promise<PrivStarkCore> | undefined;

/** A pool backed by a fixture's escrow, with its watcher. */
export interface WatchedPool {
  readonly f: EscrowFixture;
  readonly core: PrivStarkCore;
  readonly store: PoolStore;
  readonly ledger: Ledger;
  readonly watch: DepositWatchStore;
  readonly watcher: DepositWatcher;
  readonly clients: ChainClients;
  readonly source: string;
  readonly dataDir: string;
  /** The watcher's clock (unix ms); tests move it. */
  now: number;
  /** One poll; throws if the poll failed (its error code), unless `allowError`. */
  poll(allowError?: boolean): Promise<void>;
  mine(blocks: number): Promise<void>;
  /** The escrow's deposit indexes in `state`, by index. */
  indexes(state: WatchedState): Promise<number[]>;
  close(): Promise<void>;
}

/** Options of {@link watchedPool}. */
export interface WatchedPoolOptions {
  readonly finality?: Finality;
  readonly denyList?: DenyList;
  /** An escrow already deployed (another pool over it, e.g. after a restart). */
  readonly fixture?: EscrowFixture;
  /** The data directory of a pool before a restart. */
  readonly dataDir?: string;
  readonly watcher?: Partial<DepositWatcherOptions>;
  /** The watcher's RPC (default the node's own URL; a proxy in front of it for hostile answers). */
  readonly rpcUrl?: string;
  /** Run under the watcher's lease (kept in the data directory's journal). */
  readonly lease?: boolean;
}

/** Deploys an escrow (unless given) and starts a pool and its watcher over it. */
export async function watchedPool(
  chain: Chain,
  options: WatchedPoolOptions = {},
): Promise<WatchedPool> {
  core ??= loadCore();
  const theCore = await core;
  const f = options.fixture ?? (await escrowFixture(chain));
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'priv-stark-watch-'));
  const clients = chainClients(options.rpcUrl ?? chain.url);
  const checked = await checkChain(chainClients(chain.url).public, { escrow: f.escrow });
  const store = await openStore(theCore, { dataDir });
  const ledger = new Ledger({
    core: theCore,
    store,
    network: checked.profile.network,
    asset: checked.profile.asset,
  });
  const watch = openDepositWatch({ dataDir });
  const source = watchSource(checked.chainId, checked.escrow);
  const binding = await watch.bind(
    {
      source,
      chainId: checked.chainId,
      escrow: checked.escrow,
      token: checked.token,
      network: checked.profile.network,
      deployBlock: checked.deployBlock,
    },
    Date.now(),
  );
  const gas = new GasBalances(clients.public, [{ role: 'acceptor', address: f.acceptor.address }]);
  const journal = options.lease ? openPayoutJournal({ dataDir }) : null;
  const pool: WatchedPool = {
    f,
    core: theCore,
    store,
    ledger,
    watch,
    clients,
    source,
    dataDir,
    now: Date.now(),
    watcher: undefined as unknown as DepositWatcher,
    async poll(allowError = false) {
      await pool.watcher.poll();
      // Automine mines after answering the send: the test's next read must find the block.
      if (await chain.test.getAutomine()) await minedFrom(chain, f.acceptor.address);
      const { error } = pool.watcher.status();
      if (error !== null && !allowError) throw new Error(`the poll failed: ${error}`);
    },
    async mine(blocks) {
      await chain.test.mine({ blocks });
    },
    async indexes(state) {
      return (await watch.deposits(source, [state], 10_000)).map((d) => d.index);
    },
    async close() {
      await pool.watcher.stop();
      await journal?.close();
      await ledger.stop();
      await watch.close();
      await store.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  const watcher = new DepositWatcher({
    clients,
    binding,
    store: watch,
    acceptor: f.acceptor,
    finality: options.finality ?? DEFAULT_FINALITY,
    gas,
    denyList: options.denyList,
    pollIntervalMs: 0,
    lag: { staleHeadMs: null },
    clock: () => pool.now,
    lease: journal ? journalLease(journal, source) : undefined,
    ...options.watcher,
  });
  (pool as { watcher: DepositWatcher }).watcher = watcher;
  watcher.start(
    ledgerDepositSink({
      core: theCore,
      ledger,
      commitmentLeaf: (commitment) => watch.commitmentLeaf(commitment),
    }),
  );
  return pool;
}

/** A gasless deposit of `amount` to `pre` from `from`, relayed by `relayer`. */
export async function depositGasless(
  f: EscrowFixture,
  from: PrivateKeyAccount,
  relayer: PrivateKeyAccount,
  amount: bigint,
  pre: Hex,
): Promise<void> {
  await escrowCall(
    f,
    relayer,
    'depositWithAuthorization',
    await gaslessArgs(f, from, { amount, pre }),
  );
}

/** The commitments of the pool's leaves. */
export async function leaves(pool: WatchedPool): Promise<string[]> {
  return pool.store.leaves(0, 10_000);
}

/** A key file of `mode` holding `key`, in a directory of its own. */
export function keyFileOf(key: Hex, mode = 0o600): string {
  const path = join(scratchDir('priv-stark-key-'), 'operator.key');
  writeFileSync(path, `${key}\n`, { mode });
  chmodSync(path, mode);
  return path;
}

/** A fresh key holding the escrow's acceptor role, funded with gas; its key file and address. */
export async function acceptorKey(f: EscrowFixture): Promise<{ file: string; address: Hex }> {
  const key = generatePrivateKey();
  const { address } = privateKeyToAccount(key);
  await f.chain.test.setBalance({ address, value: 10n ** 19n });
  const role = await f.chain.public.readContract({
    address: f.escrow,
    abi: privStarkEscrowAbi,
    functionName: 'ACCEPTOR_ROLE',
  });
  await escrowCall(f, f.admin, 'grantRole', [role, address]);
  return { file: keyFileOf(key), address };
}
