/**
 * @module The facilitator listener's JSON bodies: the shared parser (`src/listener/json-body.ts`),
 * its refusals answered `invalid_payload`.
 */

import type { FastifyInstance } from 'fastify';

import {
  JsonBodyError,
  parseJsonWithoutPoisoning,
  registerJsonBodyParser as register,
} from '../listener/json-body.js';
import { ReasonError } from './errors.js';

/**
 * Parses a request body as JSON and refuses prototype poisoning at any depth.
 * @throws ReasonError `invalid_payload` for an empty body, bad JSON or a poisoning key
 * @example
 * parseJsonBody('{"x402Version":2}'); // { x402Version: 2 }
 * parseJsonBody('{"a":{"__proto__":{}}}'); // throws invalid_payload
 */
export function parseJsonBody(text: string): unknown {
  try {
    return parseJsonWithoutPoisoning(text);
  } catch (error) {
    if (error instanceof JsonBodyError) throw new ReasonError('invalid_payload', { cause: error });
    throw error;
  }
}

/** Replaces Fastify's `application/json` parser; refusals are `invalid_payload`. */
export function registerJsonBodyParser(app: FastifyInstance): void {
  register(app, (error) => new ReasonError('invalid_payload', { cause: error }));
}
