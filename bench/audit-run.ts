// The auditor of the audit bench, in a process of its own so that its wall time and peak memory
// are its alone: `priv-stark audit`'s two halves as src/cli/audit.ts runs them — the chain's facts
// from the RPC, the log over HTTP from the pool node (`PublicLogReader`), the chain's findings
// against the log's facts — but without proof checks (the CLI has no such switch; the bench's log
// carries stand-in proofs, bench/audit-log.ts). Prints one JSON line.
//
// Run: npx tsx bench/audit-run.ts POOL_URL RPC_URL ESCROW FROM_BLOCK

import { createPublicClient, http } from 'viem';

import { auditLog } from '../src/audit/index.js';
import { chainFindings, readChainFacts } from '../src/chain/chain-audit.js';
import { loadCore } from '../src/core/index.js';
import { PublicLogReader } from '../src/pool-node/public-log-reader.js';

/** What one log-only audit came to. */
export interface AuditRun {
  readonly ok: boolean;
  readonly counts: Record<string, number>;
  readonly incomplete: string | null;
  readonly events: number;
  readonly attestations: number;
  readonly checkedUpTo: { seq: number; eventId: number } | null;
  readonly chainMs: number;
  readonly logMs: number;
  readonly totalMs: number;
  readonly maxRssMiB: number;
}

const [pool, rpc, escrow, fromBlock] = process.argv.slice(2);
if (!pool || !rpc || !escrow || fromBlock === undefined)
  throw new Error('usage: audit-run.ts POOL_URL RPC_URL ESCROW FROM_BLOCK');
const core = await loadCore();
const started = performance.now();
// The CLI's client: viem's 10 MB reply cap; a wider range is read again in halves (chain-audit.ts).
const client = createPublicClient({ transport: http(rpc, { retryCount: 1 }) });
const facts = await readChainFacts(client, escrow as `0x${string}`, Number(fromBlock));
const chainRead = performance.now();
const log = await auditLog(core, new PublicLogReader(pool), facts.attestations, {
  verifyProofs: false,
});
const logDone = performance.now();
// The log's counts are of every finding (its list keeps the first 100 of a code).
const counts: Record<string, number> = { ...log.counts };
for (const f of chainFindings(core, log.facts, facts, { shieldDeadlineS: 3600 }))
  counts[f.code] = (counts[f.code] ?? 0) + 1;
const latest = facts.attestations.at(-1);
const run: AuditRun = {
  ok:
    Object.keys(counts).length === 0 &&
    log.incomplete === null &&
    log.checkedUpTo?.seq === latest?.seq,
  counts,
  incomplete: log.incomplete,
  events: log.events,
  attestations: facts.attestations.length,
  checkedUpTo: log.checkedUpTo,
  chainMs: chainRead - started,
  logMs: logDone - chainRead,
  totalMs: performance.now() - started,
  // maxRSS is in KiB on Linux.
  maxRssMiB: process.resourceUsage().maxRSS / 1024,
};
process.stdout.write(`${JSON.stringify(run)}\n`);
