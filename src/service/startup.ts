/**
 * @module What every start of the service does first, one process or several
 * (`service.ts`, `workers.ts`): the configuration checks the service refuses on, the core with
 * the accepted parameter sets, and the secrets generated on first start and shown that once.
 */

import { loadCore, type PrivStarkCore } from '../core/index.js';
import { isLoopbackHost, loadAccessConfig } from '../http/index.js';
import { resolveOperatorToken } from '../pool-node/index.js';
import { generatedApiKey } from './api-key.js';
import { ServiceConfigError } from './config-error.js';

/** The parts of the service's configuration (`ServiceConfig`) a start checks first. */
export interface StartupConfig {
  readonly facilitator: boolean;
  readonly poolNode: boolean;
  readonly host: string;
  readonly insecureNoAuth: boolean;
  readonly apiKeys: string | undefined;
  readonly configPath: string | undefined;
  readonly dataDir: string;
  readonly operatorToken: string | undefined;
  readonly parameterSets: readonly number[] | undefined;
  readonly transitionParameterSets: readonly number[] | undefined;
  readonly chain?: unknown;
}

/** An error's message, whatever was thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Refuses what the service never runs and reads `CONFIG` / `API_KEYS` (the facilitator's access).
 * @throws ServiceConfigError; ConfigError (http) for an unusable `CONFIG` or `API_KEYS`
 */
export function checkedAccess(config: StartupConfig): ReturnType<typeof loadAccessConfig> | null {
  if (!config.facilitator && !config.poolNode)
    throw new ServiceConfigError('nothing to run: neither the facilitator nor the pool node');
  if (config.insecureNoAuth && !isLoopbackHost(config.host))
    throw new ServiceConfigError('--insecure-no-auth is refused unless the host is loopback');
  const access = config.facilitator
    ? loadAccessConfig({ apiKeys: config.apiKeys, configPath: config.configPath })
    : null;
  if (config.chain && access?.networks)
    throw new ServiceConfigError('a chain pool names its own network: drop "networks" from CONFIG');
  return access;
}

/**
 * The core, accepting the configured parameter sets.
 * @throws ServiceConfigError for a set the core does not know
 */
export async function configuredCore(config: StartupConfig): Promise<PrivStarkCore> {
  const core = await loadCore();
  if (config.parameterSets !== undefined) {
    try {
      core.acceptParameterSets(config.parameterSets);
    } catch (error) {
      throw new ServiceConfigError(`PROOF_PARAMETER_SETS: ${messageOf(error)}`);
    }
  }
  if (config.transitionParameterSets !== undefined) {
    try {
      core.acceptTransitionParameterSets(config.transitionParameterSets);
    } catch (error) {
      throw new ServiceConfigError(`TRANSITION_PARAMETER_SETS: ${messageOf(error)}`);
    }
  }
  return core;
}

/** The data directory's API key, generated on first start and shown then only. */
export function apiKeyShownOnce(dataDir: string, say: (line: string) => void): string {
  const { key, generated, file } = generatedApiKey(dataDir);
  if (generated)
    say(
      `priv-stark start: no API key configured; generated one (shown once; kept in ${file}; set API_KEYS or CONFIG to choose your own):\n${key}`,
    );
  return key;
}

/** The pool operator's token: configured, or generated on first start and shown then only. */
export function operatorTokenShownOnce(config: StartupConfig, say: (line: string) => void): string {
  const token = resolveOperatorToken({ token: config.operatorToken, dataDir: config.dataDir });
  if (token.generated)
    say(
      `priv-stark: generated the pool operator token (shown once; kept in ${token.file}):\n${token.token}`,
    );
  return token.token;
}
