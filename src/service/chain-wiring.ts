/**
 * @module A chain-backed pool, wired (docs/chain.md): before the ledger exists, the RPC, the escrow
 * and its token are checked against the configuration and the store's binding, and the pool's
 * network and asset follow (`openChain`; a devnet start on a store bound to a chain is refused in
 * `store-binding.ts`). The service imports this module only for a chain pool, so viem loads only then. In the pool node's instance only, the hot keys are loaded once
 * (`loadChainKeys`: the facilitator alone never reads a key) and the deposit watcher runs over
 * the ledger (`depositWatcher`). Every refusal is a `ServiceConfigError` naming what is wrong:
 * the command exits 2.
 */

import type { PrivStarkCore } from '../core/index.js';
import type { Ledger, PoolStore, StoreConfig } from '../ledger/index.js';
import { type DepositWatchStore, openDepositWatch, watchSource } from '../ledger/index.js';
import type { AttestedSets } from '../ledger/attested-sets.js';
import { openAttestedSets } from '../ledger/open-attested-sets.js';
import { openPayoutJournal } from '../ledger/open-payout-journal.js';
import type { PayoutJournal } from '../ledger/payout-journal.js';
import { ledgerDepositSink } from '../pool-node/deposit-sink.js';
import { ChainError } from '../chain/chain-errors.js';
import { type CheckedChain, checkChain } from '../chain/chain-binding.js';
import { DenyList } from '../chain/deny-list.js';
import { DepositWatcher, type WatcherLog } from '../chain/deposit-watcher.js';
import { journalLease } from '../chain/watcher-lease.js';
import type { Finality } from '../chain/finality.js';
import { DEFAULT_MIN_GAS_BALANCE, GasBalances } from '../chain/gas-balances.js';
import {
  KeyError,
  loadOperatorKeys,
  type OperatorKeys,
  parseKeyFileSpec,
  refuseDevelopmentKeys,
} from '../chain/keys.js';
import { type ChainClients, chainClients } from '../chain/rpc-client.js';
import { readTwoKeyMode } from '../chain/two-key-payouts.js';
import { ServiceConfigError } from './config-error.js';

/** A chain pool's configuration (`--chain-rpc`, `--escrow`, … on `start` and `pool serve`). */
export interface ChainServiceConfig {
  /** The JSON-RPC endpoint (`CHAIN_RPC_URL`). */
  readonly rpcUrl: string;
  /** The escrow (`ESCROW_ADDRESS`). */
  readonly escrow: string;
  /** The chain the RPC must serve (`CHAIN_ID`); otherwise the bound one, or the RPC's at first. */
  readonly chainId?: number | undefined;
  /** The token the escrow must hold (`TOKEN_ADDRESS`). */
  readonly token?: string | undefined;
  /** The escrow's deployment block (`ESCROW_DEPLOY_BLOCK`); found on chain otherwise. */
  readonly deployBlock?: number | undefined;
  /** `--operator-key-file` values: `FILE` for every role, `role=FILE` for one (`OPERATOR_KEY_FILE`). */
  readonly keyFiles: readonly string[];
  /** When an acceptance is final (`CHAIN_CONFIRMATIONS`: a count, `safe` or `finalized`). */
  readonly finality: Finality;
  /** The deny list file (`--deny-list`). */
  readonly denyList?: string | undefined;
  /** Wei below which a hot key's sender stops (`CHAIN_MIN_GAS_BALANCE`, default 0.0005 ETH). */
  readonly minGasBalance?: bigint | undefined;
  /** Between the watcher's polls, ms (`CHAIN_POLL_INTERVAL_MS`, 2000; 0: only when asked). */
  readonly pollIntervalMs?: number | undefined;
  /** The watcher's lease, ms (`CHAIN_WATCHER_LEASE_TTL_MS`, 15000): the longest hand-over. */
  readonly watcherLeaseTtlMs?: number | undefined;
  /** Atomic units the relayer takes per relayed deposit (`--relayer-fee`, `RELAYER_FEE`, 0). */
  readonly relayerFee?: bigint | undefined;
  /**
   * Between the attester's attestations, ms (`--attest-interval-ms`, `ATTEST_INTERVAL_MS`, hourly;
   * 0: only on demand). Without an attester key there are none.
   */
  readonly attestIntervalMs?: number | undefined;
}

/** The chain as checked at start, with what talks to it. */
export interface OpenedChain {
  readonly checked: CheckedChain;
  readonly clients: ChainClients;
  readonly watch: DepositWatchStore;
  /** Where the watcher's lease is kept (the payout journal's `leases`). */
  readonly journal: PayoutJournal;
  /** The attester's recorded unpaid sets (two-key payouts prove from them). */
  readonly attestedSets: AttestedSets;
  /** Whether the escrow requires two-key payouts (read from it: fixed at its deployment). */
  readonly twoKeyPayouts: boolean;
  close(): Promise<void>;
}

function refusal(error: unknown): never {
  if (error instanceof ChainError || error instanceof KeyError)
    throw new ServiceConfigError(`${error.code}: ${error.message}`);
  throw error;
}

/**
 * Checks the chain and the store's binding, and records the binding if the store had none.
 * @throws ServiceConfigError when the RPC is unreachable or serves another chain, the escrow has no
 *   code or holds another token, or the store backs another pool (another escrow, or the devnet)
 */
export async function openChain(
  config: ChainServiceConfig,
  store: PoolStore,
  storeConfig: StoreConfig,
): Promise<OpenedChain> {
  const clients = chainClients(config.rpcUrl);
  const watch = openDepositWatch(storeConfig);
  const journal = openPayoutJournal(storeConfig);
  const attestedSets = openAttestedSets(storeConfig);
  const close = async () => {
    await watch.close();
    await journal.close();
    await attestedSets.close();
  };
  try {
    const [bound] = await watch.bindings();
    if (bound && bound.escrow.toLowerCase() !== config.escrow.toLowerCase())
      throw new ServiceConfigError(
        `binding_mismatch: the store backs the pool of escrow ${bound.escrow} on chain ${bound.chainId}, not ${config.escrow}`,
      );
    // The bound chain and token are checked against the RPC's too.
    const checked = await checkChain(clients.public, config, bound).catch(refusal);
    const source = watchSource(checked.chainId, checked.escrow);
    if (!bound && (await store.state()).events > 0)
      throw new ServiceConfigError(
        'binding_mismatch: the store holds a devnet pool’s ledger; a chain pool needs a store of its own',
      );
    await watch.bind(
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
    const twoKeyPayouts = await readTwoKeyMode(clients.public, checked.escrow).catch(refusal);
    return { checked, clients, watch, journal, attestedSets, twoKeyPayouts, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Loads the hot keys, once per process (`OPERATOR_KEY` leaves the environment here), refusing
 * the published development keys on any chain but 31337.
 * @throws ServiceConfigError for a key file that is exposed, unreadable or malformed
 */
export function loadChainKeys(
  config: ChainServiceConfig,
  chainId: number,
  env: NodeJS.ProcessEnv = process.env,
): OperatorKeys {
  try {
    const keys = loadOperatorKeys(parseKeyFileSpec(config.keyFiles), env);
    refuseDevelopmentKeys(chainId, keys);
    return keys;
  } catch (error) {
    return refusal(error);
  }
}

/** What the watcher runs over. */
export interface WatcherParts {
  readonly core: PrivStarkCore;
  readonly ledger: Ledger;
  readonly keys: OperatorKeys;
  readonly log: WatcherLog;
}

/**
 * The deposit watcher of the pool node's instance, not started yet (`start(sink)` with
 * {@link watcherSink}).
 * @throws ServiceConfigError without an acceptor key, or for an unreadable deny list
 */
export async function depositWatcher(
  opened: OpenedChain,
  config: ChainServiceConfig,
  parts: WatcherParts,
): Promise<DepositWatcher> {
  const acceptor = parts.keys.account('acceptor');
  if (!acceptor)
    throw new ServiceConfigError(
      'the pool node of a chain pool needs the acceptor key: --operator-key-file FILE (or acceptor=FILE), or OPERATOR_KEY',
    );
  let denyList: DenyList | undefined;
  try {
    denyList = config.denyList === undefined ? undefined : new DenyList(config.denyList);
  } catch (error) {
    throw new ServiceConfigError(
      `--deny-list ${config.denyList}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const { checked, clients, watch } = opened;
  const [binding] = await watch.bindings();
  if (!binding) throw new ServiceConfigError('binding_mismatch: the store lost its chain binding');
  const gas = new GasBalances(
    clients.public,
    parts.keys.roles.map((role) => ({ role, address: parts.keys.account(role)!.address })),
    config.minGasBalance ?? DEFAULT_MIN_GAS_BALANCE,
  );
  return new DepositWatcher({
    clients,
    binding,
    store: watch,
    acceptor,
    finality: config.finality,
    gas,
    denyList,
    pollIntervalMs: config.pollIntervalMs,
    // One instance at a time acts: the acceptor key's nonces are used by one.
    lease: journalLease(opened.journal, binding.source, config.watcherLeaseTtlMs),
    // A local node mines on demand: an old head there is not a stale RPC.
    lag: checked.chainId === 31337 ? { staleHeadMs: null } : {},
    log: parts.log,
  });
}

/** The ledger's sink for the watcher's deposits. */
export function watcherSink(opened: OpenedChain, parts: Pick<WatcherParts, 'core' | 'ledger'>) {
  return ledgerDepositSink({
    core: parts.core,
    ledger: parts.ledger,
    commitmentLeaf: (commitment) => opened.watch.commitmentLeaf(commitment),
  });
}

/** A log whose target is set once the pool node's logger exists (lines before it are dropped). */
export function deferredLog(): WatcherLog & { target: WatcherLog | null } {
  const log: WatcherLog & { target: WatcherLog | null } = {
    target: null,
    info: (fields, message) => log.target?.info(fields, message),
    warn: (fields, message) => log.target?.warn(fields, message),
    error: (fields, message) => log.target?.error(fields, message),
  };
  return log;
}
