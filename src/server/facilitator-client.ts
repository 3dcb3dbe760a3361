/**
 * @module The facilitator client merchants give `x402ResourceServer`: `verify` and `settle` go
 * through the official `HTTPFacilitatorClient` (with the API key on both paths); the supported
 * kinds come from configuration or from the facilitator's `GET /health` — the facilitator has no
 * `/supported` route (priv-stark-v1.md §4), and the stock middleware matches kinds by exact network.
 * What leaves for `/verify` and `/settle` is the payload less the resource URL's query and fragment,
 * its description and the extensions (`facilitator-request.ts`).
 */

import { HTTPFacilitatorClient } from '@x402/core/http';
import type { FacilitatorClient } from '@x402/core/server';
import type {
  PaymentPayload,
  PaymentRequirements,
  SettleResponse,
  SupportedKind,
  SupportedResponse,
  VerifyResponse,
} from '@x402/core/types';

import { facilitatorPayload } from './facilitator-request.js';
import { PROOF_TRANSPORTS, type ProofTransport, SCHEME, X402_VERSION } from '../scheme/index.js';

/** Options of {@link PrivStarkFacilitatorClient}. */
export interface PrivStarkFacilitatorOptions {
  /** The facilitator's base URL, e.g. `http://127.0.0.1:4020`. */
  readonly url: string;
  /** The API key (`Authorization: Bearer …` on /verify and /settle). */
  readonly apiKey?: string | undefined;
  /** Per request, ms (default 30000). */
  readonly timeoutMs?: number | undefined;
  /** Networks served, from configuration; without them `GET /health` says. */
  readonly networks?: readonly string[] | undefined;
  /** The fetch for `/health` (default `globalThis.fetch`). */
  readonly fetch?: typeof fetch | undefined;
}

/**
 * The facilitator client.
 * @example
 * const facilitator = new PrivStarkFacilitatorClient({ url: 'http://127.0.0.1:4020', apiKey });
 * const server = new x402ResourceServer(facilitator).register('shielded:devnet', new PrivStarkSchemeServer());
 */
export class PrivStarkFacilitatorClient implements FacilitatorClient {
  readonly url: string;
  private readonly http: HTTPFacilitatorClient;

  constructor(private readonly options: PrivStarkFacilitatorOptions) {
    this.url = options.url.replace(/\/+$/, '');
    const key = options.apiKey;
    this.http = new HTTPFacilitatorClient({
      url: this.url,
      timeoutMs: options.timeoutMs ?? 30_000,
      ...(key
        ? {
            createAuthHeaders: async () => ({
              verify: { Authorization: `Bearer ${key}` },
              settle: { Authorization: `Bearer ${key}` },
            }),
          }
        : {}),
    });
  }

  verify(
    paymentPayload: PaymentPayload,
    paymentRequirements: PaymentRequirements,
  ): Promise<VerifyResponse> {
    return this.http.verify(facilitatorPayload(paymentPayload), paymentRequirements);
  }

  settle(
    paymentPayload: PaymentPayload,
    paymentRequirements: PaymentRequirements,
  ): Promise<SettleResponse> {
    return this.http.settle(facilitatorPayload(paymentPayload), paymentRequirements);
  }

  /**
   * The kinds from configuration, or from `GET /health` (`networks`), each with the proof
   * transports the facilitator takes in `extra.proofTransports` (from `/health`; configured
   * networks assume both).
   */
  async getSupported(): Promise<SupportedResponse> {
    const { networks, proofTransports } = this.options.networks
      ? { networks: this.options.networks, proofTransports: [...PROOF_TRANSPORTS] }
      : await this.health();
    const kinds: SupportedKind[] = networks.map((network) => ({
      x402Version: X402_VERSION,
      scheme: SCHEME,
      network: network as SupportedKind['network'],
      extra: { proofTransports },
    }));
    return { kinds, extensions: [], signers: {} };
  }

  private async health(): Promise<{ networks: string[]; proofTransports: ProofTransport[] }> {
    const doFetch = this.options.fetch ?? globalThis.fetch;
    const response = await doFetch(`${this.url}/health`, {
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
    });
    const body = (await response.json().catch(() => null)) as {
      scheme?: string;
      networks?: { network?: unknown }[];
      proofTransports?: unknown;
    } | null;
    if (!body || !Array.isArray(body.networks))
      throw new Error(
        `facilitator ${this.url}/health answered ${response.status} without networks`,
      );
    if (body.scheme !== undefined && body.scheme !== SCHEME)
      throw new Error(`facilitator ${this.url} serves ${String(body.scheme)}, not ${SCHEME}`);
    // A facilitator from before compact payments says nothing of transports: inline only.
    const transports = Array.isArray(body.proofTransports) ? body.proofTransports : ['inline'];
    return {
      networks: body.networks
        .map((n) => n.network)
        .filter((n): n is string => typeof n === 'string'),
      proofTransports: PROOF_TRANSPORTS.filter((t) => transports.includes(t)),
    };
  }
}
