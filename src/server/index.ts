/**
 * @module `priv-stark/server`: the `priv-stark/v1` scheme server, the facilitator client and route
 * helpers for merchants on the stock `@x402/express` / `@x402/hono` middleware, the hand-over relay
 * (one line on express, Hono or Next.js), and a Fastify plugin that mounts it.
 */

export {
  PrivStarkFacilitatorClient,
  type PrivStarkFacilitatorOptions,
} from './facilitator-client.js';
export { MERCHANT_MAX_HEADER_BYTES, type PrivStarkRoute, privStarkRoutes } from './routes.js';
export {
  PRIV_STARK_RELAY_PATH,
  type PrivStarkRelay,
  type PrivStarkRelayOptions,
  privStarkRelay,
  type RelayReply,
} from './relay.js';
export { PrivStarkSchemeServer, toAtomic } from './scheme.js';
export {
  type ChainBacking,
  type ChainNetworkProfile,
  chainNetworkProfile,
  type NetworkProfile,
} from '../scheme/index.js';
export {
  FASTIFY_MERCHANT_OPTIONS,
  privStarkFastify,
  type PrivStarkFastifyOptions,
} from './fastify.js';
