/**
 * @module `--transport` and `--pool-proxy` (PRIV_STARK_TRANSPORT, PRIV_STARK_POOL_PROXY) of the
 * commands that open a wallet (`wallet …`, `pay`, `mcp`): how writes reach the pool node
 * (docs/privacy.md, "Transports"). A write that goes directly to the pool node is said on stderr
 * once per merchant origin (stdout stays the command's, or MCP's).
 */

import type { TransportMode, TransportWarning } from '../client/index.js';

/** The `parseArgs` options of the two flags. */
export const TRANSPORT_FLAGS = {
  transport: { type: 'string' },
  'pool-proxy': { type: 'string' },
} as const;

/** The flags as the usage shows them. */
export const TRANSPORT_USAGE = '[--transport private-first|private-only] [--pool-proxy URL]';

const MODES: readonly TransportMode[] = ['private-first', 'private-only'];

/**
 * The wallet's transport options from the flags, else the environment.
 * @throws RangeError for a transport other than `private-first` or `private-only`
 */
export function transportOptions(
  values: { transport?: string | undefined; 'pool-proxy'?: string | undefined },
  env: NodeJS.ProcessEnv,
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
) {
  const mode = values.transport ?? env.PRIV_STARK_TRANSPORT ?? 'private-first';
  if (!MODES.includes(mode as TransportMode))
    throw new RangeError(
      `--transport expects private-first or private-only, got ${mode.slice(0, 40)}`,
    );
  return {
    transport: mode as TransportMode,
    // Unset or empty: the environment's HTTPS_PROXY / HTTP_PROXY / ALL_PROXY, if any.
    poolProxy: (values['pool-proxy'] ?? env.PRIV_STARK_POOL_PROXY) || undefined,
    onTransportWarning: (warning: TransportWarning) => warn(`warning: ${warning.message}`),
  };
}
