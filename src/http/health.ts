/**
 * @module `GET /health` (public), shaped like under-pressure's status route: 200 with the
 * version, scheme, x402 version, proof backend, networks with their one asset, the accepted proof
 * parameter sets with their security, and the pool's state; 503 naming what is down (`pool`, `backend`).
 * A chain pool's networks name their chain, escrow and token, and `chain` says how its deposit
 * watcher follows them (`chain-health.ts`) — a chain lagging or down never makes the route 503.
 */

import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';

import type { Backend, ParameterSetInfo } from '../core/index.js';
import {
  type ChainHealth,
  ChainHealthSchema,
  chainBody,
  NetworkChainSchema,
} from './chain-health.js';
import type { StoreKind, StoreState } from '../ledger/index.js';
import {
  DEVNET_NETWORK,
  type NetworkProfile,
  PROOF_TRANSPORTS,
  type ProofTransport,
  SCHEME,
  X402_VERSION,
} from '../scheme/index.js';

/** What the health route reads. */
export interface HealthSource {
  /** The facilitator's version. */
  readonly version: string;
  /** The loaded proof backend, `null` when none loaded. */
  readonly backend: Backend | null;
  readonly networks: readonly NetworkProfile[];
  /** The proof parameter sets the verifier accepts. */
  readonly parameterSets: readonly ParameterSetInfo[];
  readonly pool: { readonly kind: StoreKind; state(): Promise<StoreState> };
  /** How long the pool may take to answer (default 2000 ms). */
  readonly timeoutMs?: number;
  /** The deposit watcher of a chain pool (`chain-health.ts`); absent for the devnet pool. */
  readonly chain?: (() => ChainHealth) | undefined;
  /**
   * The service's processes (`priv-stark start --workers N`), asked of its primary, which also
   * writes the pool: when it does not answer, the pool is down. Absent for one process.
   */
  readonly workers?: (() => Promise<WorkersHealth>) | undefined;
}

/** The workers of a multi-process service. */
export interface WorkersHealth {
  /** Workers the service runs (`--workers`). */
  readonly configured: number;
  /** Workers serving now (fewer while one that died is restarted). */
  readonly alive: number;
}

const CheckpointSchema = Type.Object({
  seq: Type.Integer(),
  root: Type.String(),
  size: Type.Integer(),
  time: Type.Integer({ description: 'unix ms of publication' }),
});

const common = {
  version: Type.String(),
  scheme: Type.Literal(SCHEME),
  x402Version: Type.Literal(X402_VERSION),
  networks: Type.Array(
    Type.Object({
      network: Type.String(),
      asset: Type.String(),
      decimals: Type.Integer(),
      chain: Type.Optional(NetworkChainSchema),
    }),
  ),
  proofTransports: Type.Array(Type.Union([Type.Literal('reference'), Type.Literal('inline')]), {
    description: 'how payments may carry their proof: by reference (compact) and inline',
  }),
  parameterSets: Type.Array(
    Type.Object({
      id: Type.Integer(),
      prover: Type.Boolean({ description: 'whether this release proves under it' }),
      conjecturedBits: Type.Integer(),
      provenListDecodingBits: Type.Integer(),
      provenUniqueDecodingBits: Type.Integer(),
    }),
    { description: 'the proof parameter sets accepted, with their security in bits' },
  ),
  chain: Type.Optional(ChainHealthSchema),
  workers: Type.Optional(
    Type.Object(
      { configured: Type.Integer(), alive: Type.Integer() },
      { description: 'the processes serving (--workers N), absent for one process' },
    ),
  ),
};

const HealthOkSchema = Type.Object(
  {
    status: Type.Literal('ok'),
    ...common,
    backend: Type.Union([Type.Literal('native'), Type.Literal('wasm')]),
    pool: Type.Object({
      kind: Type.String(),
      ok: Type.Literal(true),
      leaves: Type.Integer({ description: 'leaves the latest checkpoint published' }),
      checkpoint: Type.Union([CheckpointSchema, Type.Null()]),
    }),
  },
  {
    description: 'ready',
    examples: [
      {
        status: 'ok',
        version: '0.1.0',
        scheme: SCHEME,
        x402Version: X402_VERSION,
        backend: 'native',
        networks: [DEVNET_NETWORK],
        proofTransports: [...PROOF_TRANSPORTS],
        parameterSets: [
          {
            id: 3,
            prover: true,
            conjecturedBits: 128,
            provenListDecodingBits: 100,
            provenUniqueDecodingBits: 49,
          },
        ],
        pool: {
          kind: 'sqlite',
          ok: true,
          leaves: 12,
          checkpoint: { seq: 3, root: '0x…', size: 12, time: 1795000000000 },
        },
      },
    ],
  },
);

const HealthDownSchema = Type.Object(
  {
    status: Type.Literal('unavailable'),
    ...common,
    backend: Type.Union([Type.Literal('native'), Type.Literal('wasm'), Type.Null()]),
    pool: Type.Object({ kind: Type.String(), ok: Type.Boolean() }),
    down: Type.Array(Type.Union([Type.Literal('pool'), Type.Literal('backend')])),
  },
  {
    description: 'not ready: `down` names the failing parts',
    examples: [{ status: 'unavailable', down: ['pool'] }],
  },
);

type HealthOk = Static<typeof HealthOkSchema>;
type HealthDown = Static<typeof HealthDownSchema>;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Registers `GET /health`. */
export function registerHealth(app: FastifyInstance, source: HealthSource): void {
  const base = {
    version: source.version,
    scheme: SCHEME,
    x402Version: X402_VERSION,
    networks: source.networks.map(({ network, asset, decimals, chain }) => ({
      network,
      asset,
      decimals,
      ...(chain ? { chain: { ...chain } } : {}),
    })),
    proofTransports: [...PROOF_TRANSPORTS] as ProofTransport[],
    parameterSets: source.parameterSets.map((set) => ({
      id: set.id,
      prover: set.prover,
      conjecturedBits: set.conjecturedBits,
      provenListDecodingBits: set.provenListDecodingBits,
      provenUniqueDecodingBits: set.provenUniqueDecodingBits,
    })),
  } as const;
  app.get(
    '/health',
    { schema: { response: { 200: HealthOkSchema, 503: HealthDownSchema } } },
    async (_request, reply) => {
      let state: StoreState | null = null;
      let workers: WorkersHealth | null = null;
      try {
        [state, workers] = await withTimeout(
          Promise.all([source.pool.state(), source.workers?.() ?? null]),
          source.timeoutMs ?? 2000,
        );
      } catch {
        state = null;
      }
      const processes = workers
        ? { workers: { configured: workers.configured, alive: workers.alive } }
        : {};
      if (state && source.backend) {
        const { checkpoint } = state;
        const body: HealthOk = {
          status: 'ok',
          ...base,
          ...(source.chain ? { chain: chainBody(source.chain()) } : {}),
          ...processes,
          backend: source.backend,
          pool: {
            kind: source.pool.kind,
            ok: true,
            // The published leaves (the latest checkpoint's): a live count would time each
            // arrival for anyone polling this public route.
            leaves: checkpoint?.size ?? 0,
            checkpoint: checkpoint && {
              seq: checkpoint.seq,
              root: checkpoint.root,
              size: checkpoint.size,
              time: checkpoint.time,
            },
          },
        };
        return reply.code(200).send(body);
      }
      const down: HealthDown['down'] = [];
      if (!state) down.push('pool');
      if (!source.backend) down.push('backend');
      const body: HealthDown = {
        status: 'unavailable',
        ...base,
        ...(source.chain ? { chain: chainBody(source.chain()) } : {}),
        ...processes,
        backend: source.backend,
        pool: { kind: source.pool.kind, ok: state !== null },
        down,
      };
      return reply.code(503).send(body);
    },
  );
}
