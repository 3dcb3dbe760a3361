/**
 * @module One linkage run: the real service (facilitator and pool node on SQLite) behind the
 * operator's recording proxies, the population's merchants and wallets on their own loopback
 * addresses, the schedule played in compressed time (simulated seconds / `compression` = real
 * seconds; the service's own timers — every `…Ms` setting of `SERVICE_DEFAULTS` but timeouts — are
 * divided by the same factor), then the operator's view and the ground truth.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { depositBySignature } from '../../src/client/chain.js';
import { Wallet } from '../../src/client/index.js';
import type { PrivStarkCore } from '../../src/core/index.js';
import { PoolNodeClient } from '../../src/pool-node/index.js';
import { DEFAULT_EPOCH_GRID, type EpochGrid } from '../../src/scheme/index.js';
import { SERVICE_DEFAULTS, type ServiceConfig, startService } from '../../src/service/index.js';
import { type LinkageChain, openLinkageChain, RELAYER_FEE } from './chain-pool.js';
import type { LinkageConfig } from './config.js';
import { type RunningMerchant, startMerchant } from './merchants.js';
import { LinkObserver } from './link-observer.js';
import { type OperatorView, readOperatorView } from './operator-view.js';
import type { Population } from './population.js';
import { Random } from './random.js';
import { startRecordingProxy } from './recording-proxy.js';
import { actorAddress, sessionAddress, withSourceAddress } from './source-address.js';
import { startTorProxy } from './tor-proxy.js';
import { type Actor, type GroundTruth, groundTruth } from './truth.js';
import { type ActorLog, WalletActor } from './wallet-actor.js';

const API_KEY = 'linkage-api-key-0123456789abcdef';
const OPERATOR_TOKEN = 'linkage-operator-token-0123456789';
const BANK_ADDRESS = '127.3.0.1';
const merchantAddress = (i: number) => `127.2.0.${i + 1}`;
/** What a crowd deposit pays in ($1). */
const CROWD_DEPOSIT = 1_000_000n;

/** What a run produced. */
export interface LinkageRun {
  readonly config: LinkageConfig;
  readonly population: Population;
  readonly view: OperatorView;
  readonly truth: GroundTruth;
  readonly logs: readonly ActorLog[];
  /** Crowd deposits planned and those that failed (the first failure's message, if any). */
  readonly crowd: {
    readonly planned: number;
    readonly failed: number;
    readonly firstError?: string;
  };
  /** The epoch grid the service ran on (E = 1 ms: none). */
  readonly grid: EpochGrid | null;
  /** Real seconds the schedule took, and the whole run. */
  readonly scheduleSeconds: number;
  readonly totalSeconds: number;
}

/**
 * The anchor delay's floor in real time, ms. The delay must cover the pool's cut at a boundary and
 * every wallet's follower sync after it (src/client/epoch-follower.ts): at real time D = 10 s
 * against a sync of a fraction of a second. Compression shortens the delay but not the sync's
 * real time — 0.5 s at 20×, about one sync of a loaded two-core machine — so without a floor the
 * followers that finish late anchor one epoch back, which names them: an artefact of compression
 * (the bench at real time measured the anchor join at 0.48). The run prints how far behind the
 * payments' anchors were ({@link anchorLag}).
 */
export const ANCHOR_DELAY_FLOOR_MS = 2_000;

/** `grid`'s delay, compressed already, raised to the floor while it stays below two thirds of E. */
function compressedAnchorDelay(grid: EpochGrid): number {
  const ceiling = Math.floor((2 * grid.epochMs) / 3);
  return Math.max(grid.anchorDelayMs, Math.min(ANCHOR_DELAY_FLOOR_MS, ceiling));
}

/** `config` with every timer in ms (but timeouts) divided by `factor`, recursively. */
function compressTimers<T>(value: T, factor: number): T {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'number' && /Ms$/.test(key) && !/timeout/i.test(key))
      out[key] = Math.max(1, Math.round(v / factor));
    else out[key] = compressTimers(v, factor);
  }
  return out as T;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Where a run's chain is, when its deposits are on chain. */
export interface LinkageOptions {
  /** A local node to deploy the escrow on (a suite's shared one); else the run starts its own. */
  readonly chainRpcUrl?: string;
}

/** Runs `population` under `config` against a fresh service and returns what the operator saw. */
export async function runLinkage(
  core: PrivStarkCore,
  population: Population,
  config: LinkageConfig,
  options: LinkageOptions = {},
): Promise<LinkageRun> {
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'priv-stark-linkage-'));
  // The watcher polls at the service's compressed cadence (2 s real time uncompressed).
  const chain: LinkageChain | undefined =
    config.deposits === 'chain'
      ? await openLinkageChain(
          options.chainRpcUrl,
          dir,
          Math.max(50, Math.round(2000 / config.compression)),
        )
      : undefined;
  const network = chain === undefined ? {} : { network: chain.profile };
  const compressed = compressTimers(SERVICE_DEFAULTS, config.compression);
  // The service's epoch grid (when it has one): compressed, its delay kept above a sync's real
  // time (ANCHOR_DELAY_FLOOR_MS), or none for the last-sync twin.
  const grid = (compressed as { epoch?: EpochGrid }).epoch;
  const epoch: EpochGrid | undefined =
    config.anchors === 'last-sync'
      ? { epochMs: 1, anchorDelayMs: 0 }
      : grid && { epochMs: grid.epochMs, anchorDelayMs: compressedAnchorDelay(grid) };
  const serviceConfig: ServiceConfig = {
    ...compressed,
    ...(epoch === undefined ? {} : { epoch }),
    ...(chain === undefined ? {} : { chain: chain.service }),
    port: 0,
    poolPort: 0,
    dataDir: dir,
    logLevel: 'silent',
    apiKeys: API_KEY,
    operatorToken: OPERATOR_TOKEN,
    ...(config.directWrites === 'refused'
      ? { handOverRateLimit: { ...compressed.handOverRateLimit, max: 0 } }
      : {}),
  };
  const service = await startService(serviceConfig, () => undefined).catch(async (error) => {
    await chain?.close();
    throw error;
  });
  // The population's Tor, for the wallets that use it (drawn apart from the schedule's draws).
  const tor = population.wallets.some((w) => w.proxied)
    ? await startTorProxy(new Random(population.shape.seed ^ 0x7024))
    : undefined;
  const facilitator = await startRecordingProxy('facilitator', service.facilitatorUrl!);
  const pool = await startRecordingProxy('pool', service.poolNodeUrl!);
  const merchants: RunningMerchant[] = [];
  const actors: Actor[] = [{ address: BANK_ADDRESS, role: 'bank', id: 0 }];
  const wallets: Wallet[] = [];
  // What a network observer on the wallets' links sees, from their first connection.
  const observer = new LinkObserver();
  try {
    for (const m of population.merchants) {
      const payee = await Wallet.create({
        core,
        pool: pool.url,
        ...network,
        ...(epoch === undefined ? {} : { minEpochMs: epoch.epochMs }),
      });
      merchants.push(
        await startMerchant({
          id: m.id,
          address: merchantAddress(m.id),
          payTo: payee.address,
          price: m.price,
          relay: m.relay && config.handOvers === 'default',
          facilitatorUrl: facilitator.url,
          poolNodeUrl: pool.url,
          apiKey: API_KEY,
          network: chain?.profile,
        }),
      );
      actors.push({ address: merchantAddress(m.id), role: 'merchant', id: m.id });
    }
    const world = {
      merchants,
      prices: population.merchants.map((m) => m.price),
      bank: new PoolNodeClient(pool.url, { token: OPERATOR_TOKEN }),
      bankAddress: BANK_ADDRESS,
      chain,
      reader: new PoolNodeClient(pool.url),
      config,
      random: new Random(population.shape.seed ^ 0x5eed),
    };
    const walletActors: WalletActor[] = [];
    for (const plan of population.wallets) {
      // A wallet refuses a pool whose epoch is below its minimum: the compressed grid's is lower.
      const walletOptions = epoch === undefined ? {} : { minEpochMs: epoch.epochMs };
      // The old keeper's refills came before minimum note ages: its twin spends notes at any age.
      const notes = {
        ...(config.keeper === 'refill-after-payment' ? { spendNow: true } : {}),
        ...(config.notes === 'spend-shown' ? { spendShown: true } : {}),
      };
      const noteAge =
        Object.keys(notes).length > 0 ? { notes: { ...notes, onWarning: () => undefined } } : {};
      const wallet = await Wallet.create({
        core,
        pool: new PoolNodeClient(pool.url),
        ...network,
        ...walletOptions,
        ...noteAge,
        ...(plan.proxied && tor !== undefined ? { poolProxy: tor.url } : {}),
      });
      wallets.push(wallet);
      const addressOf =
        config.addresses === 'per-session'
          ? (session: number) => sessionAddress(plan.id, session)
          : () => actorAddress(plan.id);
      walletActors.push(new WalletActor(plan, addressOf, wallet, world));
    }
    // Each crowd deposit from a wallet of its own (a wallet hands out few open tickets).
    const crowd: { planned: number; failed: number; firstError?: string } = {
      planned: population.crowdDeposits.length,
      failed: 0,
    };
    // Everything a crowd deposit does — its wallet's reads included — from the bank's address.
    const crowdDeposit = () => withSourceAddress(BANK_ADDRESS, crowdDepositNow);
    const crowdDepositNow = async () => {
      try {
        const payer = await Wallet.create({ core, pool: new PoolNodeClient(pool.url), ...network });
        if (chain !== undefined) {
          const account = await chain.depositor(CROWD_DEPOSIT);
          await depositBySignature(payer, {
            account,
            rpc: chain.rpcUrl,
            amount: CROWD_DEPOSIT,
            maxFee: RELAYER_FEE,
          });
          return;
        }
        const ticket = await payer.depositTicket(String(CROWD_DEPOSIT));
        await world.bank.deposit(ticket.amount, ticket.pre);
      } catch (error) {
        crowd.failed++;
        crowd.firstError ??= error instanceof Error ? error.message : String(error);
      }
    };
    const scheduleStart = performance.now();
    await playSchedule(population, walletActors, crowdDeposit, config.compression, world.random);
    const scheduleSeconds = (performance.now() - scheduleStart) / 1000;
    for (const a of walletActors) await a.stop();
    // Let the last writes settle and a checkpoint cover them, then read the wallets' truth.
    await sleep(
      Math.max(
        200,
        (4 * SERVICE_DEFAULTS.checkpointIntervalMs) / config.compression,
        2 * ((epoch?.epochMs ?? 0) + (epoch?.anchorDelayMs ?? 0)),
      ),
    );
    for (const a of walletActors) await a.wallet.sync().catch(() => undefined);
    observer.stop();
    for (const a of walletActors)
      for (const address of a.addresses) actors.push({ address, role: 'wallet', id: a.plan.id });
    const view = readOperatorView(
      join(dir, 'pool.sqlite'),
      [...facilitator.records, ...pool.records],
      observer.uploads(),
    );
    return {
      config,
      population,
      view,
      truth: groundTruth(wallets, actors),
      logs: walletActors.map((a) => a.log),
      crowd,
      grid: epoch ?? null,
      scheduleSeconds,
      totalSeconds: (performance.now() - started) / 1000,
    };
  } finally {
    observer.stop();
    for (const m of merchants) await m.close().catch(() => undefined);
    await facilitator.close();
    await pool.close();
    await tor?.close();
    await service.close();
    await chain?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Plays every wallet's plan in compressed time; resolves when every action has finished. */
async function playSchedule(
  population: Population,
  actors: readonly WalletActor[],
  crowdDeposit: () => Promise<void>,
  compression: number,
  random: Random,
): Promise<void> {
  const real = (simulated: number) => (simulated * 1000) / compression;
  const running = new Set<Promise<void>>();
  const timers: ReturnType<typeof setTimeout>[] = [];
  const t0 = performance.now();
  let scheduled = 0;
  const at = (simulated: number, action: () => Promise<void>) => {
    scheduled++;
    timers.push(
      setTimeout(
        () => {
          scheduled--;
          const p = action().finally(() => running.delete(p));
          running.add(p);
        },
        Math.max(0, real(simulated) - (performance.now() - t0)),
      ),
    );
  };
  // A write answered "not now" is tried again one to two (simulated, uncompressed) epochs later,
  // until the tail's end.
  const horizon = population.shape.horizonSeconds + population.shape.tailSeconds;
  const epochSeconds = DEFAULT_EPOCH_GRID.epochMs / 1000;
  for (const actor of actors) {
    const plan = actor.plan;
    actor.retryLater = (write) => {
      const when =
        ((performance.now() - t0) * compression) / 1000 +
        random.uniform(epochSeconds, 2 * epochSeconds);
      if (when < horizon) at(when, write);
    };
    at(plan.depositAt, async () => {
      await actor.deposit();
      actor.start();
    });
    // The one-shot CLI syncs for its writes only: no background syncs between them.
    if (actor.syncsInBackground())
      for (let t = plan.firstSyncAt; t < horizon; t += plan.syncEvery) at(t, () => actor.sync());
    for (const [i, topUp] of plan.topUps.entries()) at(topUp.at, () => actor.deposit(i + 1));
    for (const p of plan.payments) at(p.at, () => actor.pay(p.merchant));
    for (const t of plan.partialExitsAt) at(t, () => actor.exit('half'));
    at(plan.exitAt, () => actor.exit('all'));
  }
  for (const t of population.crowdDeposits) at(t, crowdDeposit);
  await sleep(real(horizon));
  // Writes tried again before the horizon's end still run; wait for everything in flight.
  for (let i = 0; i < 600 && (running.size > 0 || scheduled > 0); i++) {
    if (running.size > 0) await Promise.allSettled([...running]);
    else await sleep(20);
  }
  for (const t of timers) clearTimeout(t);
}
