/**
 * @module Access configuration of the facilitator: API keys from `API_KEYS` (comma-separated,
 * hashed at load, no policy) and from the `CONFIG` JSON file (keys as SHA-256 hashes, each with
 * an optional policy; a default rate limit; the network). Plain keys are never kept or logged.
 *
 * ```json
 * {
 *   "keys": [{ "id": "shop-a", "sha256": "<64 hex>",
 *              "policy": { "allowedRecipients": ["pstark1…"], "maxAmount": "1000000",
 *                          "rateLimit": { "max": 600, "timeWindowMs": 60000 } } }],
 *   "limits": { "rateLimit": { "max": 6000, "timeWindowMs": 60000 } },
 *   "networks": [{ "network": "shielded:devnet", "asset": "dUSD", "decimals": 6 }]
 * }
 * ```
 */

import { readFileSync } from 'node:fs';

import { type Static, Type } from 'typebox';
import { Compile } from 'typebox/compile';

import { isAmount, type NetworkProfile } from '../scheme/index.js';
import { type ApiKeyEntry, hashKey, type RateLimitPolicy } from './auth.js';

const RateLimitSchema = Type.Object(
  { max: Type.Integer({ minimum: 1 }), timeWindowMs: Type.Integer({ minimum: 1 }) },
  { additionalProperties: false },
);

const ConfigSchema = Type.Object(
  {
    keys: Type.Optional(
      Type.Array(
        Type.Object(
          {
            id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$' }),
            sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
            policy: Type.Optional(
              Type.Object(
                {
                  allowedRecipients: Type.Optional(
                    Type.Array(Type.String({ minLength: 1, maxLength: 256 })),
                  ),
                  maxAmount: Type.Optional(Type.String()),
                  rateLimit: Type.Optional(RateLimitSchema),
                },
                { additionalProperties: false },
              ),
            ),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    limits: Type.Optional(
      Type.Object({ rateLimit: Type.Optional(RateLimitSchema) }, { additionalProperties: false }),
    ),
    networks: Type.Optional(
      Type.Array(
        Type.Object(
          {
            network: Type.String({
              minLength: 3,
              maxLength: 64,
              pattern: '^[a-z0-9-]+:[A-Za-z0-9_-]+$',
            }),
            asset: Type.String({ minLength: 1, maxLength: 64 }),
            decimals: Type.Integer({ minimum: 0, maximum: 30 }),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 1 },
      ),
    ),
  },
  { additionalProperties: false },
);

/** The parsed `CONFIG` file. */
export type ConfigFile = Static<typeof ConfigSchema>;

const checkConfig = Compile(ConfigSchema);

/** The facilitator's access configuration. */
export interface AccessConfig {
  readonly keys: readonly ApiKeyEntry[];
  /** Applied to keys without a rate limit of their own. */
  readonly defaultRateLimit?: RateLimitPolicy | undefined;
  /** The network (with its one asset) when the file names one. */
  readonly networks?: readonly NetworkProfile[] | undefined;
}

/** A configuration that cannot be used; the message names the field, never a key. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Parses the `CONFIG` file's JSON text. */
export function parseConfig(text: string): AccessConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConfigError('CONFIG is not valid JSON');
  }
  if (!checkConfig.Check(value)) {
    const first = checkConfig.Errors(value)[0];
    throw new ConfigError(`CONFIG${first?.instancePath ?? ''}: ${first?.message ?? 'invalid'}`);
  }
  const file = value as ConfigFile;
  const keys = (file.keys ?? []).map((key, i): ApiKeyEntry => {
    const p = key.policy;
    if (p?.maxAmount !== undefined && !isAmount(p.maxAmount))
      throw new ConfigError(`CONFIG/keys/${i}/policy/maxAmount: expected a decimal amount`);
    return {
      id: key.id,
      sha256: Buffer.from(key.sha256, 'hex'),
      policy: {
        ...(p?.allowedRecipients ? { allowedRecipients: p.allowedRecipients } : {}),
        ...(p?.maxAmount !== undefined ? { maxAmount: BigInt(p.maxAmount) } : {}),
        ...(p?.rateLimit ? { rateLimit: p.rateLimit } : {}),
      },
    };
  });
  const ids = new Set<string>();
  for (const key of keys) {
    if (ids.has(key.id)) throw new ConfigError(`CONFIG/keys: duplicate id ${key.id}`);
    ids.add(key.id);
  }
  return { keys, defaultRateLimit: file.limits?.rateLimit, networks: file.networks };
}

/**
 * Keys of `API_KEYS` (comma-separated; blanks ignored), each labelled `env-` and the first 16 hex
 * digits of its hash: the label keys the shared rate-limit counters, so it must not depend on the
 * key's position — instances listing the same keys in another order count each key together.
 */
export function keysFromList(list: string): ApiKeyEntry[] {
  return list
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key.length > 0)
    .map((key, i) => {
      if (key.length < 16)
        throw new ConfigError(`API_KEYS: key ${i + 1} is shorter than 16 characters`);
      const sha256 = hashKey(key);
      return { id: `env-${sha256.toString('hex').slice(0, 16)}`, sha256, policy: {} };
    });
}

/**
 * The access configuration from `API_KEYS` and the `CONFIG` file (either may be absent); keys
 * without a rate limit get the file's default.
 * @throws ConfigError for an unreadable file or an invalid entry
 */
export function loadAccessConfig(sources: {
  apiKeys?: string | undefined;
  configPath?: string | undefined;
}): AccessConfig {
  let file: AccessConfig = { keys: [] };
  if (sources.configPath) {
    let text: string;
    try {
      text = readFileSync(sources.configPath, 'utf8');
    } catch {
      throw new ConfigError('CONFIG file cannot be read');
    }
    file = parseConfig(text);
  }
  const keys = [...file.keys, ...keysFromList(sources.apiKeys ?? '')];
  const withDefaults = keys.map((key) =>
    key.policy.rateLimit || !file.defaultRateLimit
      ? key
      : { ...key, policy: { ...key.policy, rateLimit: file.defaultRateLimit } },
  );
  return { keys: withDefaults, defaultRateLimit: file.defaultRateLimit, networks: file.networks };
}
