// What a buyer sees when a payment is replayed or altered, end to end on loopback with the stock
// packages (payer side built with x402Client + x402HTTPClient so the header can be replayed and
// edited; merchants on stock @x402/express, @x402/hono and the Fastify plugin with this project's
// scheme server): one header on 20 parallel requests is served once; altered amount, recipient,
// network, asset or expiry, an expired payment and a payment for another route are refused with
// 402, each with the reason shown. Compact payments (the merchants' default) on all three; inline
// payments on an Express merchant that opts into them, where the proof itself is checked again.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { x402Client, x402HTTPClient } from '@x402/core/client';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';

import { PoolNodeError, registerPrivStark, Wallet } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import type { ProofTransport } from '../../src/scheme/index.js';
import { MERCHANT_MAX_HEADER_BYTES } from '../../src/server/index.js';
import {
  expressMerchant,
  fastifyMerchant,
  honoMerchant,
  type Merchant,
  type MerchantOptions,
  type Stack,
  startStack,
} from '../../testkit/stack.js';

let core: PrivStarkCore;
let stack: Stack;
beforeAll(async () => {
  core = await loadCore();
  stack = await startStack(core);
});
afterAll(async () => {
  await stack?.close();
});

/** What the buyer is told: the settle failure's reason, or the 402's `error`. */
function reasonOf(response: Response): string | undefined {
  const settle = response.headers.get('payment-response');
  if (settle) {
    const decoded = JSON.parse(Buffer.from(settle, 'base64').toString('utf8')) as {
      success: boolean;
      errorReason?: string;
    };
    if (!decoded.success) return decoded.errorReason;
  }
  const required = response.headers.get('payment-required');
  return required
    ? (JSON.parse(Buffer.from(required, 'base64').toString('utf8')) as { error?: string }).error
    : undefined;
}

const encodeHeader = (payload: PaymentPayload) =>
  new x402HTTPClient(new x402Client()).encodePaymentSignatureHeader(payload);

/** A merchant that opts into inline payments only, with its header limit raised for them. */
const INLINE_ONLY: MerchantOptions = {
  proofTransports: ['inline'],
  maxHeaderSize: MERCHANT_MAX_HEADER_BYTES,
};

/**
 * What the facilitator says of a payload whose proof does not prove this payment: inline, the
 * proof is checked again and fails; compact, the stored proof's public inputs or context do not
 * match the payment, so the reference is unknown for it.
 */
const notThisProof = (transport: ProofTransport) =>
  transport === 'inline' ? /invalid_priv_stark_proof/ : /unknown_proof_reference/;

describe.each([
  ['express', 'reference', expressMerchant, {}],
  ['hono', 'reference', honoMerchant, {}],
  ['fastify', 'reference', fastifyMerchant, {}],
  ['express', 'inline', expressMerchant, INLINE_ONLY],
] as const)(
  '%s merchant (%s payments) against replays and edits',
  (_name, transport, makeMerchant, options) => {
    let payer: Wallet;
    let merchant: Merchant;
    let merchantWallet: Wallet;
    let http: x402HTTPClient;

    beforeAll(async () => {
      payer = await stack.wallet();
      merchantWallet = await stack.wallet();
      merchant = await makeMerchant(stack.facilitatorUrl, merchantWallet.address, options);
      for (let i = 0; i < 12; i++) {
        const ticket = await payer.depositTicket(String(100_000 + i));
        await stack.operator.deposit(ticket.amount, ticket.pre);
        // At most DEPOSIT_GAP tickets open: seen once a checkpoint publishes the deposit.
        await stack.settle(payer);
      }
      await stack.settle(payer);
      http = new x402HTTPClient(registerPrivStark(new x402Client(), payer));
    });
    afterAll(async () => {
      await merchant?.close();
    });

    async function required(path: string): Promise<PaymentRequired> {
      const response = await fetch(`${merchant.url}${path}`);
      expect(response.status).toBe(402);
      return http.getPaymentRequiredResponse((name) => response.headers.get(name));
    }

    async function paymentFor(path: string, wallet: Wallet = payer): Promise<PaymentPayload> {
      const client =
        wallet === payer ? http : new x402HTTPClient(registerPrivStark(new x402Client(), wallet));
      const payload = await client.createPaymentPayload(await required(path));
      // The merchant's transport, as listed.
      expect((payload.payload as { proofRef?: string }).proofRef === undefined).toBe(
        transport === 'inline',
      );
      return payload;
    }

    const send = (path: string, headers: Record<string, string>) =>
      fetch(`${merchant.url}${path}`, { headers });

    it('serves one header once: 20 parallel requests → one 200, nineteen 402; sent again later → 402', async () => {
      const headers = encodeHeader(await paymentFor('/weather'));
      const served = merchant.served.get('GET /weather') ?? 0;
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => send('/weather', headers)),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 402)).toHaveLength(19);
      for (const r of responses.filter((x) => x.status === 402))
        expect(reasonOf(r)).toMatch(/duplicate_settlement|nullifier_already_spent/);
      expect(merchant.served.get('GET /weather')).toBe(served + 1);
      const later = await send('/weather', headers);
      expect(later.status).toBe(402);
      expect(reasonOf(later)).toBe('duplicate_settlement');
      expect(merchant.served.get('GET /weather')).toBe(served + 1);
    });

    it('refuses payloads whose amount, recipient, network, asset or expiry was changed', async () => {
      const other = await stack.wallet();
      const edits: [string, (p: PaymentPayload) => void, RegExp][] = [
        ['amount', (p) => (p.payload.amount = '1'), /payment_requirements_mismatch/],
        [
          'recipient',
          (p) => (p.payload.recipient = other.address),
          /payment_requirements_mismatch/,
        ],
        ['network', (p) => (p.payload.network = 'shielded:other'), /unsupported_network/],
        [
          'expiry',
          (p) => (p.payload.expiry = (p.payload.expiry as number) - 60),
          notThisProof(transport),
        ],
        [
          "expiry beyond the route's timeout",
          (p) => (p.payload.expiry = (p.payload.expiry as number) + 3600),
          /expiry_too_far/,
        ],
        // The accepted requirements edited too: the middleware finds no matching requirement.
        [
          'accepted amount',
          (p) => {
            p.accepted.amount = '1';
            p.payload.amount = '1';
          },
          /No matching payment requirements/,
        ],
        [
          'accepted payTo',
          (p) => {
            p.accepted.payTo = other.address;
            p.payload.recipient = other.address;
          },
          /No matching payment requirements/,
        ],
        ['accepted asset', (p) => (p.accepted.asset = 'USDC'), /No matching payment requirements/],
        [
          'accepted network',
          (p) => (p.accepted.network = 'shielded:other'),
          /No matching payment requirements/,
        ],
      ];
      const served = merchant.served.get('GET /weather') ?? 0;
      for (const [what, edit, reason] of edits) {
        const payload = structuredClone(await paymentFor('/weather'));
        edit(payload);
        const response = await send('/weather', encodeHeader(payload));
        expect(response.status, what).toBe(402);
        expect(reasonOf(response), what).toMatch(reason);
      }
      expect(merchant.served.get('GET /weather') ?? 0).toBe(served);
    });

    it('refuses an expired payment', async () => {
      const past = await Wallet.create({
        core,
        pool: stack.poolUrl,
        clock: () => Date.now() - 30 * 60_000,
      });
      await stack.fund(past, '50000');
      if (transport === 'reference') {
        // The pool node refuses to keep its proof: no header leaves the wallet, and its record is
        // closed as shown (the nullifier reached the node: refreshed before the note pays again).
        const error = await paymentFor('/weather', past).then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(PoolNodeError);
        expect(error).toMatchObject({ code: 'payment_expired' });
        expect(past.payments()).toEqual([expect.objectContaining({ status: 'expired' })]);
        return;
      }
      const response = await send('/weather', encodeHeader(await paymentFor('/weather', past)));
      expect(response.status).toBe(402);
      expect(reasonOf(response)).toMatch(/payment_expired/);
    });

    it('refuses a payment for one route at another', async () => {
      const forWeather = await paymentFor('/weather');
      // As made: its requirements (resourceId "GET /weather") match nothing at /report.
      const asIs = await send('/report', encodeHeader(forWeather));
      expect(asIs.status).toBe(402);
      expect(reasonOf(asIs)).toMatch(/No matching payment requirements/);
      // Relabelled as /report's: the facilitator recomputes the context from /report's requirements.
      const relabelled = structuredClone(forWeather);
      relabelled.accepted = (await required('/report')).accepts[0]!;
      const response = await send('/report', encodeHeader(relabelled));
      expect(response.status).toBe(402);
      expect(reasonOf(response)).toMatch(notThisProof(transport));
      expect(merchant.served.get('GET /report') ?? 0).toBe(0);
    });
  },
);
