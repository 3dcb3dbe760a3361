/**
 * @module The MCP server's background backing check (docs/audit.md, "Wallet: verify-backing"): in
 * a chain pool, with the user's own RPC (`--chain-rpc`, CHAIN_RPC_URL), the wallet checks its notes
 * against the escrow's latest attestation at jittered times, never next to a payment, through the
 * wallet's proxy. Each outcome is one line on stderr when it differs from the last: the attested
 * sequence and the problem codes, never the wallet's notes or values.
 */

import type { Wallet } from '../client/index.js';

/** The check's settings, `null` when off. */
export interface McpBackingCheck {
  readonly rpc: string;
  readonly everyMs: number;
}

/**
 * `--backing-check-every-ms N` (PRIV_STARK_BACKING_CHECK_EVERY_MS; hourly by default, 0 off) with
 * the RPC: on only where the user configured one.
 * @throws RangeError naming the flag when the interval is not a whole number of ms
 */
export function mcpBackingCheck(
  rpc: string | undefined,
  everyText: string | undefined,
): McpBackingCheck | null {
  if (everyText !== undefined && !/^(0|[1-9][0-9]{0,11})$/.test(everyText))
    throw new RangeError('--backing-check-every-ms expects a whole number of ms (0: no check)');
  const everyMs = everyText === undefined ? 3_600_000 : Number(everyText);
  if (rpc === undefined || everyMs === 0) return null;
  return { rpc, everyMs };
}

/**
 * Starts `wallet`'s background check in a chain pool (nothing elsewhere); `wallet.stop()` ends it.
 * @returns whether it started
 */
export async function startMcpBackingCheck(
  wallet: Wallet,
  config: McpBackingCheck,
  log: (line: string) => void,
): Promise<boolean> {
  if (wallet.network.chain === undefined) return false;
  const { checkBackingInBackground } = await import('../client/chain.js');
  let last = '';
  checkBackingInBackground(wallet, {
    rpc: config.rpc,
    everyMs: config.everyMs,
    onResult: (result) => {
      let line: string;
      if (result.kind === 'failed')
        line = `backing check could not complete (${result.code}); retrying at the next slot`;
      else {
        const seq = result.report.attestation?.seq;
        const at = seq === undefined ? '' : ` at attestation ${seq}`;
        line = result.ok
          ? `backing check: the wallet's tree gives the attested root${at}`
          : `backing check: NOT shown (${result.report.problems.join(', ')})${at}`;
      }
      if (line !== last) log(line);
      last = line;
    },
  });
  log(`backing check: on average every ${config.everyMs} ms, against the configured RPC`);
  return true;
}
