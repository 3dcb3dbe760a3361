/**
 * @module `priv-stark/server`: the `priv-stark/v1` scheme server, the facilitator client and route
 * helpers for merchants on the stock `@x402/express` / `@x402/hono` middleware, and a Fastify plugin.
 */

export {
  PrivStarkFacilitatorClient,
  type PrivStarkFacilitatorOptions,
} from './facilitator-client.js';
export { MERCHANT_MAX_HEADER_BYTES, type PrivStarkRoute, privStarkRoutes } from './routes.js';
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
