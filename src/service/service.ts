/**
 * @module The service, composed once: the core, the ledger's store and its checkpoint timer, the
 * verification threads, the facilitator with its listener (and metrics), and the devnet pool node
 * — over the embedded SQLite store in the data directory, or PostgreSQL with `databaseUrl`
 * (several instances may share it; give the others `poolNode: false`). `priv-stark start` and
 * `priv-stark pool serve` parse flags into a {@link ServiceConfig} and call {@link startService};
 * the tests, the end-to-end helpers and the benchmarks do the same.
 *
 * The service enforces its safety rules itself: auth is off only when asked for and only on a
 * loopback address, with a warning in the log; without configured secrets, an API key and the
 * operator token are generated once, kept in the data directory (mode 0600) and shown once.
 * `close()` shuts down gracefully: stop accepting, finish in-flight requests (settles reach their
 * durable commit), stop the checkpoint timer, stop the threads, close the store, then export the
 * spans still queued.
 *
 * Traces are on only when the `OTEL_*` environment asks for them (`src/tracing/sdk.ts`): then the
 * SDK starts, both listeners trace their requests, and the store is wrapped so each call is a span.
 */

import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';

import pg from 'pg';
import type { Registry } from 'prom-client';

import { type PrivStarkCore, VerifierThreads } from '../core/index.js';
import { Facilitator, VerdictCache } from '../facilitator/index.js';
import {
  ApiKeys,
  type AuthMode,
  build,
  FacilitatorMetrics,
  hashKey,
  listenMetrics,
  postgresRateLimitStore,
  type WorkersHealth,
} from '../http/index.js';
import type { DepositWatcher } from '../chain/deposit-watcher.js';
import type { OperatorKeys } from '../chain/keys.js';
import {
  Ledger,
  openStore,
  type PoolStore,
  type SqliteWriteChannel,
  tracedStore,
} from '../ledger/index.js';
import { type CountRequest, sharedRateLimitStore } from '../listener/shared-rate-limit.js';
import type { PayoutSender } from '../pool-node/payout-sender.js';
import { buildPoolNode, errorCodeOf, type HandOverLimits } from '../pool-node/index.js';
import {
  ContextDigests,
  DEFAULT_EPOCH_GRID,
  DEVNET_NETWORK,
  type EpochGrid,
  SCHEME,
} from '../scheme/index.js';
import { tracingRequested } from '../tracing/requested.js';
import type { ChainServiceConfig, OpenedChain } from './chain-wiring.js';
import { ServiceConfigError } from './config-error.js';
import {
  apiKeyShownOnce,
  checkedAccess,
  configuredCore,
  messageOf,
  operatorTokenShownOnce,
} from './startup.js';
import { refuseChainBoundStore } from './store-binding.js';

export { ServiceConfigError };

/** What the service runs and how. */
export interface ServiceConfig {
  /** Listen address of every listener. */
  readonly host: string;
  /** Run the facilitator listener (`/verify`, `/settle`, `/health`). */
  readonly facilitator: boolean;
  /** Its port (0: any free port). */
  readonly port: number;
  /** Run the devnet pool node (off for extra instances sharing PostgreSQL). */
  readonly poolNode: boolean;
  /** Its port (0: any free port). */
  readonly poolPort: number;
  /** Origins whose pages may read the pool node's GET routes (browser wallets); default none. */
  readonly poolCorsOrigins: readonly string[] | '*' | undefined;
  /** The embedded SQLite store's directory, and where generated secrets are kept. */
  readonly dataDir: string;
  /** PostgreSQL instead of SQLite. */
  readonly databaseUrl: string | undefined;
  /** Comma-separated API keys (hashed at load, never logged). */
  readonly apiKeys: string | undefined;
  /** The `CONFIG` file: keys with policies, limits, the network. */
  readonly configPath: string | undefined;
  /** No API keys; refused unless `host` is loopback. */
  readonly insecureNoAuth: boolean;
  /** Prometheus listener, off when undefined. */
  readonly metricsPort: number | undefined;
  /** Checkpoint cadence, ms. */
  readonly checkpointIntervalMs: number;
  /**
   * The epoch grid wallets anchor to (`EPOCH_MS`, `ANCHOR_DELAY_MS`): one checkpoint per boundary,
   * stamped with it; anchors older than the grid allows are refused `root_too_old`.
   * `NO_EPOCH_GRID` (E = 1 ms): a checkpoint whenever the timer asks — tests, a devnet that must not wait.
   */
  readonly epoch: EpochGrid;
  /** The operator's deposit token (generated and kept in `dataDir` when undefined). */
  readonly operatorToken: string | undefined;
  /** pino level of every listener's log. */
  readonly logLevel: string;
  /** Verification threads (undefined: one per core; 0: the core's own off-thread path). */
  readonly verifyThreads: number | undefined;
  /** Nice value of the verification threads (undefined: 10). */
  readonly verifyNice: number | undefined;
  /** Handed-over proofs the store may hold at once (compact payments). */
  readonly proofStoreCapacity: number;
  /** Hand-overs per client and window at the pool node. */
  readonly handOverRateLimit: HandOverLimits;
  /**
   * Days the proof archive keeps a proof after its event was published (`--proof-retention-days`,
   * `PROOF_RETENTION_DAYS`; default 30).
   */
  readonly proofRetentionDays: number;
  /**
   * Proof parameter sets to accept (`PROOF_PARAMETER_SETS`; undefined: the core's default, today
   * sets 3 and 2). Drop an old set once no payment proved under it can still be in flight.
   */
  readonly parameterSets: readonly number[] | undefined;
  /**
   * Transition parameter sets `POST /transitions` accepts (`TRANSITION_PARAMETER_SETS`;
   * undefined: the core's default, today 17 and 16). Drop 16 once no transition proved by an
   * older wallet can still be in flight.
   */
  readonly transitionParameterSets: readonly number[] | undefined;
  /**
   * A pool backed by an escrow on a chain (`chain-wiring.ts`): its network and asset are the
   * chain's, deposits come from the escrow's watcher (in the pool node's instance), and
   * `POST /deposit` is refused. Undefined: the devnet pool.
   */
  readonly chain?: ChainServiceConfig | undefined;
}

/** What `priv-stark start` runs without flags or environment (priv-stark-v1.md §6). */
export const SERVICE_DEFAULTS: ServiceConfig = {
  host: '127.0.0.1',
  facilitator: true,
  port: 4020,
  poolNode: true,
  poolPort: 4021,
  poolCorsOrigins: undefined,
  dataDir: './data',
  databaseUrl: undefined,
  apiKeys: undefined,
  configPath: undefined,
  insecureNoAuth: false,
  metricsPort: undefined,
  checkpointIntervalMs: 2000,
  epoch: DEFAULT_EPOCH_GRID,
  operatorToken: undefined,
  logLevel: 'info',
  verifyThreads: undefined,
  verifyNice: undefined,
  proofStoreCapacity: 10_000,
  handOverRateLimit: { max: 120, timeWindowMs: 60_000 },
  proofRetentionDays: 30,
  parameterSets: undefined,
  transitionParameterSets: undefined,
};

/**
 * What a worker of `priv-stark start --workers N` takes from its primary process (`workers.ts`),
 * which runs what must run once: the SQLite store's writes, the checkpoint timer, the log
 * digests, the rate-limit counters with the address salt, and the metrics listener.
 */
export interface WorkerParts {
  /** The primary's writer of the SQLite store (PostgreSQL is written by each worker). */
  readonly sqliteWriter: SqliteWriteChannel;
  /** Counts a request against the window every worker shares. */
  readonly countRequest: CountRequest;
  /** The salt of the pool node's client addresses, the same in every worker. */
  readonly clientSalt: Uint8Array;
  /** How many workers run and serve (`/health`). */
  readonly workers: () => Promise<WorkersHealth>;
  /** Hands this worker's metrics registry to the primary's aggregation. */
  readonly exposeMetrics: (registry: Registry) => void;
  /**
   * `true`: each worker binds its own sockets on the shared ports (`SO_REUSEPORT`, Node 22.12 and
   * later), the kernel spreading connections; `false`: the primary accepts and hands connections
   * over (`node:cluster`'s shared handle, Node 20).
   */
  readonly reusePort: boolean;
}

/** A running service. */
export interface RunningService {
  /** Base URL of the facilitator listener, `null` when it does not run. */
  readonly facilitatorUrl: string | null;
  /** Base URL of the pool node, `null` when it does not run. */
  readonly poolNodeUrl: string | null;
  /** The Prometheus endpoint, `null` when off. */
  readonly metricsUrl: string | null;
  /** The core the service loaded. */
  readonly core: PrivStarkCore;
  /** The ledger (the operator may publish a checkpoint now, read its state). */
  readonly ledger: Ledger;
  /** A chain pool's deposit watcher (in the pool node's instance), `null` otherwise. */
  readonly depositWatcher: DepositWatcher | null;
  /** A chain pool's payout sender (in the pool node's instance, with the payout key), or `null`. */
  readonly payoutSender: PayoutSender | null;
  /** Valid spend verdicts kept between a payment's `/verify` and `/settle` (and its counters). */
  readonly verdicts: VerdictCache;
  /** Graceful shutdown (idempotent). */
  close(): Promise<void>;
}

/** A worker's listen options when it binds its own sockets on the shared ports. */
function ownSockets(worker: WorkerParts | undefined): { exclusive?: true; reusePort?: true } {
  return worker?.reusePort ? { exclusive: true, reusePort: true } : {};
}

function urlOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function addressPort(server: { address(): unknown }): number {
  const address = server.address();
  return typeof address === 'object' && address !== null && 'port' in address
    ? Number(address.port)
    : 0;
}

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/**
 * Starts what the configuration names and returns once every listener is listening.
 * @param say where generated secrets and operational notes go (default stderr)
 * @param worker the primary's parts when this process is one of several workers (`workers.ts`)
 * @throws ServiceConfigError for a configuration the service refuses; ConfigError (http) for an
 *   unusable `CONFIG` or `API_KEYS`; the store's or the core's error when they cannot be opened
 * @example
 * const service = await startService({ ...SERVICE_DEFAULTS, port: 0, poolPort: 0, dataDir: './data' });
 * console.log(service.facilitatorUrl, service.poolNodeUrl);
 * await service.close();
 */
export async function startService(
  config: ServiceConfig,
  say: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
  worker?: WorkerParts,
): Promise<RunningService> {
  if (worker && config.chain)
    throw new ServiceConfigError('a chain pool runs in one process: use --workers 1');
  const access = checkedAccess(config);
  const core = await configuredCore(config);
  // One list for every verifier of the process: the core, its threads and the ledger's stored
  // verdicts of handed-over proofs.
  const accepted = core.acceptedParameterSets().map((set) => set.id);
  // The SDK is loaded only when asked for (tracing/requested.ts).
  const tracing = tracingRequested() ? (await import('../tracing/sdk.js')).sharedTracing() : null;
  // Closed last: spans still queued are exported once everything else has stopped.
  const closers: (() => Promise<unknown>)[] = tracing ? [() => tracing.shutdown()] : [];
  const cleanup = async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  };
  let opened: PoolStore;
  try {
    opened = await openStore(core, {
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      onIdleError: (error) => say(`priv-stark: a database connection closed: ${error.message}`),
      sqliteWriter: worker?.sqliteWriter,
    });
  } catch (error) {
    await cleanup();
    throw error;
  }
  closers.push(() => opened.close());
  const store = tracing ? tracedStore(opened) : opened;
  try {
    const storeConfig = { databaseUrl: config.databaseUrl, dataDir: config.dataDir };
    // viem and the chain code load only for a chain pool.
    const wiring = config.chain ? await import('./chain-wiring.js') : null;
    let chain: OpenedChain | null = null;
    if (config.chain && wiring) {
      chain = await wiring.openChain(config.chain, opened, storeConfig);
      const { close } = chain;
      closers.push(close);
    } else {
      await refuseChainBoundStore(storeConfig);
    }
    const network = chain?.checked.profile ?? access?.networks?.[0] ?? DEVNET_NETWORK;
    // Proofs are verified on niced worker threads, by the facilitator, the ledger and the pool
    // node's hand-over alike (verifyThreads 0: on the core's own off-thread path instead).
    let verify = core.verifySpend;
    let verifier: VerifierThreads | null = null;
    if (config.verifyThreads !== 0) {
      verifier = await VerifierThreads.start({
        backend: core.backend,
        size: config.verifyThreads,
        nice: config.verifyNice,
        acceptedParameterSets: config.parameterSets === undefined ? undefined : accepted,
      }).catch((error: unknown) => {
        say(
          `priv-stark: verification threads did not start (${messageOf(error)}); verifying on the core's own threads`,
        );
        return null;
      });
      if (verifier) {
        const threads = verifier;
        closers.push(() => threads.close());
        verify = threads.verify;
      }
    }
    // An inline payment's proof is checked at /verify and again at /settle: the second time from
    // the kept valid verdict of exactly those bytes and inputs (src/facilitator/verdict-cache.ts).
    const verdicts = new VerdictCache(verify);
    // A handed-over proof's verdict is its stored row: it goes to the verifier itself, never
    // through the cache (whose key, a SHA-256 of the proof, would cost it tens of µs for nothing).
    const verifyHandOver = verify;
    verify = verdicts.verify;
    // One memo of payment context digests for the ledger and the facilitator: a payment's context
    // is hashed once across its hand-over, /verify and /settle (about 60 µs each time otherwise).
    const contexts = new ContextDigests((payment) => core.contextDigest(payment));
    const ledger = new Ledger({
      core: { ...core, verifySpend: verify, contextDigest: (payment) => contexts.of(payment) },
      verifyHandOver,
      store,
      scheme: SCHEME,
      network: network.network,
      asset: network.asset,
      checkpointIntervalMs: config.checkpointIntervalMs,
      epoch: config.epoch,
      proofStoreCapacity: config.proofStoreCapacity,
      proofRetentionMs: config.proofRetentionDays * 86_400_000,
      acceptedParameterSets: accepted,
      onTimerError: (error) => say(`priv-stark: checkpoint failed: ${messageOf(error)}`),
    });
    closers.push(() => ledger.stop());
    // A worker's checkpoints come from the primary's timer: one per interval for the service.
    if (!worker) ledger.start();

    // The watcher of a chain pool runs where the pool node does; a facilitator alone reads no key.
    const watcherLog = wiring?.deferredLog();
    let watcher: DepositWatcher | null = null;
    let keys: OperatorKeys | null = null;
    if (chain && config.chain && config.poolNode && wiring && watcherLog) {
      keys = wiring.loadChainKeys(config.chain, chain.checked.chainId);
      const parts = { core, ledger, keys, log: watcherLog };
      watcher = await wiring.depositWatcher(chain, config.chain, parts);
      const running = watcher;
      closers.push(() => running.stop());
    }
    const chainStatus = watcher ? () => (watcher as DepositWatcher).status() : undefined;

    // One registry for the facilitator's and the pool node's metrics, on its own listener.
    const metrics =
      config.metricsPort === undefined
        ? undefined
        : new FacilitatorMetrics({
            backend: core.backend,
            pool: ledger,
            verifier: verifier ?? undefined,
            verdicts,
            checkpointIntervalMs: config.checkpointIntervalMs,
            proofStoreCapacity: config.proofStoreCapacity,
            chain: chainStatus,
          });

    // The attester, with the attester key (docs/audit.md, "Attestations"); before the payout
    // sender, which asks it to attest when a two-key payout waits for an attestation.
    const attesterLog: { target: null | import('./attest-wiring.js').AttesterLog['target'] } = {
      target: null,
    };
    const attester =
      chain && config.chain && keys
        ? (await import('./attest-wiring.js')).chainAttester(chain, config.chain, {
            ledger,
            keys,
            log: attesterLog,
          })
        : null;
    if (attester) closers.push(() => attester.stop());
    // The payout sender runs beside the watcher, with the payout key (docs/chain.md, "Payouts").
    const payouts =
      chain && config.chain && keys
        ? (await import('./payout-wiring.js')).chainPayouts(chain, config.chain, {
            ledger,
            keys,
            storeConfig,
            registry: metrics?.registry,
            requestAttestation: attester ? () => void attester.attestNow() : undefined,
          })
        : null;
    if (payouts) closers.push(() => payouts.close());

    let facilitatorUrl: string | null = null;
    let metricsUrl: string | null = null;
    // Said once everything listens, so whoever waits for the line may use every listener.
    let announce: (poolNodeUrl: string | null) => void = () => undefined;
    // The facilitator's keys, which the pool node takes from merchants' hand-over relays.
    let relayKeys: ApiKeys | undefined;
    if (config.facilitator && access) {
      let auth: AuthMode;
      if (config.insecureNoAuth) {
        auth = { mode: 'off' };
      } else if (access.keys.length > 0) {
        auth = { mode: 'keys', keys: new ApiKeys(access.keys) };
      } else {
        const key = apiKeyShownOnce(config.dataDir, say);
        auth = {
          mode: 'keys',
          keys: new ApiKeys([
            {
              id: 'generated',
              sha256: hashKey(key),
              policy: access.defaultRateLimit ? { rateLimit: access.defaultRateLimit } : {},
            },
          ]),
        };
      }

      let rateLimitStore = worker
        ? sharedRateLimitStore(worker.countRequest, 'facilitator')
        : undefined;
      if (config.databaseUrl) {
        const connections = new pg.Pool({ connectionString: config.databaseUrl, max: 4 });
        connections.on('error', () => undefined);
        closers.push(() => connections.end());
        rateLimitStore = await postgresRateLimitStore(connections);
      }

      if (auth.mode === 'keys') relayKeys = auth.keys;
      const facilitator = new Facilitator({ core, ledger, networks: [network], verify, contexts });
      const app = await build({
        facilitator,
        auth,
        rateLimitStore,
        metrics,
        logger: { level: config.logLevel },
        instrument: tracing?.facilitatorPlugin((request) => request.x402Reason),
        health: {
          version: VERSION,
          backend: core.backend,
          networks: [network],
          parameterSets: core.acceptedParameterSets(),
          pool: { kind: store.kind, state: () => ledger.state() },
          chain: chainStatus,
          workers: worker?.workers,
        },
      });
      closers.push(() => app.close());
      if (auth.mode === 'off')
        app.log.warn(
          'auth is OFF (--insecure-no-auth): anyone who can reach this loopback listener may verify and settle',
        );
      await app.listen({ port: config.port, host: config.host, ...ownSockets(worker) });
      facilitatorUrl = urlOf(config.host, addressPort(app.server));
      const url = facilitatorUrl;
      announce = (poolNode) =>
        app.log.info(
          {
            url,
            poolNode,
            // A worker serves no metrics of its own: the primary announces its listener.
            ...(worker ? {} : { metrics: metricsUrl }),
            store: store.kind,
            backend: core.backend,
            network: network.network,
            traces: tracing !== null,
          },
          'Facilitator listening',
        );
    }

    let poolNodeUrl: string | null = null;
    if (config.poolNode) {
      const operatorToken = operatorTokenShownOnce(config, say);
      const node = await buildPoolNode({
        ledger,
        transitionParameterSets: core.acceptedTransitionParameterSets(),
        operatorToken,
        logger: { level: config.logLevel },
        corsOrigins: config.poolCorsOrigins,
        handOver: config.handOverRateLimit,
        relayKeys,
        sharedLimits: worker && {
          store: sharedRateLimitStore(worker.countRequest, 'pool-node'),
          clientSalt: worker.clientSalt,
        },
        // The primary extends the log digests for every worker.
        logDigestIntervalMs: worker ? 0 : undefined,
        requests: metrics?.poolNodeRequests,
        instrument: tracing?.poolNodePlugin((_request, reply, payload) =>
          errorCodeOf(reply.statusCode, payload),
        ),
        depositSource: watcher ?? undefined,
        payoutRail: payouts?.sender.rail,
        attester: attester ?? undefined,
        depositRelay:
          chain && config.chain && keys
            ? await (await import('./relay-wiring.js')).depositRelay(chain, config.chain, keys)
            : undefined,
      });
      closers.push(() => node.close());
      await node.listen({ port: config.poolPort, host: config.host, ...ownSockets(worker) });
      poolNodeUrl = urlOf(config.host, addressPort(node.server));
      node.log.info(
        {
          url: poolNodeUrl,
          store: store.kind,
          checkpointIntervalMs: config.checkpointIntervalMs,
          epochMs: config.epoch.epochMs,
          anchorDelayMs: config.epoch.anchorDelayMs,
          traces: tracing !== null,
        },
        'pool node ready',
      );
      if (chain && watcher && wiring && watcherLog) {
        watcherLog.target = node.log.child({ component: 'deposit-watcher' });
        watcher.start(wiring.watcherSink(chain, { core, ledger }));
      }
      attesterLog.target = node.log.child({ component: 'attester' });
      if (payouts) {
        payouts.log.target = node.log.child({ component: 'payout-sender' });
        payouts.start();
      }
    }
    if (metrics && worker) {
      // The primary's listener serves every worker's metrics, aggregated.
      worker.exposeMetrics(metrics.registry);
    } else if (metrics && config.metricsPort !== undefined) {
      const server: Server = await listenMetrics(metrics.registry, config.metricsPort, config.host);
      closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
      metricsUrl = `${urlOf(config.host, addressPort(server))}/metrics`;
    }
    announce(poolNodeUrl);

    let closing: Promise<void> | null = null;
    return {
      facilitatorUrl,
      poolNodeUrl,
      metricsUrl,
      core,
      ledger,
      depositWatcher: watcher,
      payoutSender: payouts?.sender ?? null,
      verdicts,
      close: () => {
        closing ??= cleanup();
        return closing;
      },
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
