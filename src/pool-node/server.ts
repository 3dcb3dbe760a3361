/**
 * @module The devnet pool node: the stand-in for a chain's read interface, on its own listener
 * (`priv-stark pool serve`, port 4021). Wallets download checkpoints, leaves and events from it and
 * rebuild the tree themselves — the node never serves one note's path, since asking for it would
 * reveal which note is yours. The operator shields funds through `POST /deposit` with a bearer
 * token. Requests are logged by method and route pattern only: no client address, no cursor.
 *
 * Routes: the reads (`read-routes.ts`: `GET /health`, `/state`, `/checkpoints?after&limit`,
 * `/leaves?from&limit`, `/events?after&limit`), the wallets' writes, rate-limited per client
 * (`wallet-writes.ts`: `POST /proofs`, `/transfers`, `/transitions`), and the operator's
 * (`deposit-route.ts`: `POST /deposit`; `payout-routes.ts`: withdrawals and payout steps). Every
 * request is schema-checked (400 `invalid_request`), a store that fails gives 503
 * `pool_unavailable`, and every error body is `{ error, message }` with a stable snake_case `error`
 * (`error-replies.ts`).
 */

import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';

import type { ParameterSetInfo } from '../core/index.js';
import type { Ledger } from '../ledger/ledger.js';
import { checkCorsOrigins, registerReadCors } from './cors.js';
import { registerChainRoutes } from './chain-routes.js';
import { registerDeposit } from './deposit-route.js';
import type { DepositRelay } from './deposit-relay.js';
import type { DepositSource } from './deposit-source.js';
import { registerErrorReplies } from './error-replies.js';
import { listenerOptions, type PoolNodeLogger, registerBodiesAndLog } from './listener-setup.js';
import { operatorGuard } from './operator-auth.js';
import { registerPayouts } from './payout-routes.js';
import { registerArchive } from './archive-routes.js';
import { type Attester, registerAttest } from './attest-route.js';
import { keepLogDigests, LOG_DIGEST_INTERVAL_MS } from './log-digest-timer.js';
import { registerHead, registerPages } from './read-routes.js';
import { type ReplyCounter, registerReplyMetrics } from './reply-metrics.js';
import { PAGE_LIMITS } from './schema-parts.js';
import type { PayoutRail } from './payout-rail.js';
import type { RelayKeys } from './relayed-handovers.js';
import { type HandOverLimits, registerWalletWrites, type SharedLimits } from './wallet-writes.js';

export { errorCodeOf } from './reply-metrics.js';

/** Options of {@link buildPoolNode}. */
export interface PoolNodeOptions {
  /** The ledger it serves. The node does not start or stop the ledger's checkpoint timer. */
  readonly ledger: Ledger;
  /**
   * The transition parameter sets the ledger's core accepts, listed on `/health` (absent: not
   * listed).
   */
  readonly transitionParameterSets?: readonly ParameterSetInfo[] | undefined;
  /** The operator's deposit token (compared in constant time; never logged). */
  readonly operatorToken: string;
  /** `false` for silence, or pino options (`level`, `stream`); default: info to stdout. */
  readonly logger?: PoolNodeLogger;
  /** Largest request body, bytes (default 4096). */
  readonly bodyLimit?: number;
  /**
   * Origins whose pages may read the public GET routes (browser wallets): exact origins such as
   * `https://shop.example`, or `'*'` for any. Default none. Browser wallets on them may also hand
   * proofs over (`POST /proofs`, with its preflight). `POST /deposit` never answers CORS.
   */
  readonly corsOrigins?: readonly string[] | '*' | undefined;
  /** The hand-over route's per-client rate limit (default 120 per minute). */
  readonly handOver?: HandOverLimits | undefined;
  /**
   * The facilitator's API keys: a hand-over a merchant's relay sends with one is limited per key
   * (its policy's rate limit), not per address (`relayed-handovers.ts`). Without them such a
   * hand-over is refused 401.
   */
  readonly relayKeys?: RelayKeys | undefined;
  /**
   * The wallets' writes' rate-limit counters and address salt, shared by the workers of one
   * service; absent: in memory, a salt of this process.
   */
  readonly sharedLimits?: SharedLimits | undefined;
  /** Counts each reply by route pattern, status and error code (the service's metrics). */
  readonly requests?: ReplyCounter | undefined;
  /** Request tracing (the service's, when traces are on): registered before anything else. */
  readonly instrument?: FastifyPluginAsync | undefined;
  /**
   * Where deposits come from in a pool backed by a chain (its escrow's watcher): `POST /deposit`
   * is then refused with `chain_deposits_only`. Absent for the devnet pool.
   */
  readonly depositSource?: DepositSource | undefined;
  /**
   * A chain-backed pool's facts for wallets and its relayer (`GET /chain`, `POST /relay/deposit`,
   * `POST /relay/reclaim`: `chain-routes.ts`), under the wallets' writes' rate limit. Absent for
   * the devnet pool.
   */
  readonly depositRelay?: DepositRelay | undefined;
  /**
   * A chain pool's payout rail (the payout sender's): `POST /transitions` refuses an exit it could
   * never pay with `unpayable_destination`. Absent for the devnet pool. With it or a deposit
   * source, the operator's `POST /withdrawals/:id/:status` is refused with `chain_payouts_only`.
   */
  readonly payoutRail?: Pick<PayoutRail, 'refusal'> | undefined;
  /**
   * How often the node extends its recorded log digests, ms (`log-digest-timer.ts`; default
   * 5000; 0: never — another node on the same store keeps them).
   */
  readonly logDigestIntervalMs?: number | undefined;
  /**
   * A chain pool's attester (with the attester key): `POST /attest` has it post now. Without one
   * the route answers `no_attester`.
   */
  readonly attester?: Attester | undefined;
}

/**
 * Builds the pool node (not listening yet: call `listen`, or `inject` in tests).
 * @throws RangeError when the operator token is shorter than 16 characters (`MIN_TOKEN_LENGTH`),
 *   or a CORS origin is not an origin
 * @example
 * const node = await buildPoolNode({ ledger, operatorToken });
 * await node.listen({ port: 4021, host: '127.0.0.1' });
 */
export async function buildPoolNode(options: PoolNodeOptions): Promise<FastifyInstance> {
  const { ledger } = options;
  const operatorOnly = operatorGuard(options.operatorToken);
  const corsOrigins = checkCorsOrigins(options.corsOrigins);
  const app = Fastify(listenerOptions(options));
  // First, so it sees every route and hook registered after it.
  if (options.instrument) await app.register(options.instrument);

  registerBodiesAndLog(app);
  registerReadCors(app, corsOrigins);
  if (options.requests) registerReplyMetrics(app, options.requests);
  registerErrorReplies(app);

  registerHead(app, ledger, options.depositSource, options.transitionParameterSets);
  registerPages(app, ledger);
  registerArchive(app, ledger);
  const digestEvery = options.logDigestIntervalMs ?? LOG_DIGEST_INTERVAL_MS;
  if (digestEvery > 0) keepLogDigests(app, ledger, digestEvery);
  registerDeposit(app, {
    ledger,
    authorize: operatorOnly,
    chainBacked: options.depositSource !== undefined,
  });
  await registerWalletWrites(app, {
    ledger,
    corsOrigins,
    limits: options.handOver,
    payoutRail: options.payoutRail,
    relayKeys: options.relayKeys,
    shared: options.sharedLimits,
  });
  registerPayouts(app, {
    ledger,
    pageLimit: PAGE_LIMITS.events,
    authorize: operatorOnly,
    chainBacked: options.depositSource !== undefined || options.payoutRail !== undefined,
  });
  registerAttest(app, { authorize: operatorOnly, attester: options.attester });
  if (options.depositRelay)
    await registerChainRoutes(app, { relay: options.depositRelay, limits: options.handOver });
  return app;
}
