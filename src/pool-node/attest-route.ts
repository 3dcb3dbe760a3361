/**
 * @module The operator's attestation on demand (docs/audit.md, "Attestations"): `POST /attest`
 * (operator token) has the pool node's attester post the claim of the latest checkpoint now,
 * beside its interval, and answers what it came to — `attested` with the transaction,
 * `already_attested` when the escrow holds that checkpoint or a later one (another instance was
 * first), `no_checkpoint` before the first. A node without an attester (the devnet pool, or no
 * attester key) answers 409 `no_attester`; a chain failure 502 `attestation_failed`, its chain
 * code in the message. The attester itself is the chain's (`src/chain/attester.ts`): this module
 * only knows its shape.
 */

import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';

import { messageOf, statusOf } from '../scheme/index.js';
import type { OperatorGuard } from './operator-auth.js';
import { count, digest, errorBody, NoQuery, oneOf } from './schema-parts.js';

/** What one attestation came to. */
export interface AttestReport {
  readonly outcome: 'attested' | 'already_attested' | 'no_checkpoint';
  /** The checkpoint claimed (0 when there is none yet). */
  readonly seq: number;
  readonly root: string | null;
  readonly logDigest: string | null;
  readonly unpaidRoot: string | null;
  /** Withdrawals under the unpaid root. */
  readonly unpaid: number;
  /** Atomic units, decimal. */
  readonly totals: {
    readonly deposited: string;
    readonly withdrawn: string;
    readonly paidOut: string;
    readonly refunded: string;
  } | null;
  /** The attestation's transaction, when this call posted it. */
  readonly tx: string | null;
  readonly block: number | null;
  readonly gasUsed: number | null;
}

/** An attestation's report, or why it failed: a stable chain code and a short message. */
export type AttestResult =
  | { readonly ok: true; readonly report: AttestReport }
  | { readonly ok: false; readonly code: string; readonly message: string };

/** The pool node's attester, as the route uses it. */
export interface Attester {
  /** Posts the claim of the latest checkpoint (one at a time: a second call shares the first's). */
  attestNow(): Promise<AttestResult>;
}

/** What `POST /attest` answers. */
export const AttestReportSchema = Type.Object({
  outcome: oneOf(['attested', 'already_attested', 'no_checkpoint'] as const),
  seq: count('the checkpoint claimed (0: none yet)'),
  root: Type.Union([digest(), Type.Null()]),
  logDigest: Type.Union([digest(), Type.Null()]),
  unpaidRoot: Type.Union([digest(), Type.Null()]),
  unpaid: count('withdrawals under the unpaid root'),
  totals: Type.Union([
    Type.Object({
      deposited: Type.String(),
      withdrawn: Type.String(),
      paidOut: Type.String(),
      refunded: Type.String(),
    }),
    Type.Null(),
  ]),
  tx: Type.Union([Type.String(), Type.Null()]),
  block: Type.Union([count(), Type.Null()]),
  gasUsed: Type.Union([count(), Type.Null()]),
});

const attestSchema = {
  description:
    "posts the operator's attestation of the latest checkpoint to the escrow now (operator only)",
  headers: Type.Object({ authorization: Type.String() }),
  querystring: NoQuery,
  response: {
    200: AttestReportSchema,
    401: errorBody('missing or wrong operator token'),
    409: errorBody('no_attester: a devnet pool, or no attester key'),
    502: errorBody('attestation_failed: the chain refused or did not answer'),
  },
};

/** Registers `POST /attest`; without an attester it answers `no_attester`. */
export function registerAttest(
  app: FastifyInstance,
  options: { authorize: OperatorGuard; attester?: Attester | undefined },
): void {
  app.post(
    '/attest',
    { schema: attestSchema, onRequest: options.authorize },
    async (request, reply) => {
      const { attester } = options;
      if (!attester)
        return reply
          .code(statusOf('no_attester') as 409)
          .send({ error: 'no_attester', message: messageOf('no_attester') });
      const result = await attester.attestNow();
      if (result.ok) {
        request.log.info({ outcome: result.report.outcome, seq: result.report.seq }, 'attestation');
        return result.report;
      }
      request.log.warn({ code: result.code }, 'attestation failed');
      return reply.code(statusOf('attestation_failed') as 502).send({
        error: 'attestation_failed',
        message: `${messageOf('attestation_failed')} (${result.code})`,
      });
    },
  );
}
