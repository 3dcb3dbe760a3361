// The auditor of the audit bench, in a process of its own so that its wall time and peak memory
// are its alone: `priv-stark audit`'s two halves as src/cli/audit.ts runs them — the chain's facts
// from the RPC, the log over HTTP from the pool node (`PublicLogReader`), the chain's findings
// against the log's facts — but without proof checks (the CLI has no such switch; the bench's log
// carries stand-in proofs, bench/audit-log.ts). Prints one JSON line.
//
// Run: npx tsx bench/audit-run.ts POOL_URL RPC_URL ESCROW FROM_BLOCK

import { createPublicClient, http } from 'viem';

import { auditLog } from '../src/audit/index.js';
import { LogFold } from '../src/audit/log-fold.js';
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

// Workaround, not a fix (src/audit/ is not the bench's to edit): `checkLeaves` tests
// `index < Math.max(attested, fold.leafEnd)` on every leaf, and `leafEnd` is a getter that walks
// every key of `expected` — O(leaves²): a 500,000-event log (1M leaves) never finished. The value
// cannot change during that loop, so the bench caches it by the map's size; remove once fixed.
const leafEnd = Object.getOwnPropertyDescriptor(LogFold.prototype, 'leafEnd')!.get!;
const cached = new WeakMap<object, { size: number; below: number; end: number }>();
Object.defineProperty(LogFold.prototype, 'leafEnd', {
  get(this: LogFold) {
    const hit = cached.get(this);
    const key = { size: this.expected.size, below: this.explainedBelow };
    if (hit && hit.size === key.size && hit.below === key.below) return hit.end;
    const end = leafEnd.call(this) as number;
    cached.set(this, { ...key, end });
    return end;
  },
});

const [pool, rpc, escrow, fromBlock] = process.argv.slice(2);
if (!pool || !rpc || !escrow || fromBlock === undefined)
  throw new Error('usage: audit-run.ts POOL_URL RPC_URL ESCROW FROM_BLOCK');
const core = await loadCore();
const started = performance.now();
// No cap on a reply's size, unlike the CLI's client (viem's 10 MB): one 10,000-block `eth_getLogs`
// of this escrow's 10,000 deposits and acceptances is 13.9 MB, and the CLI stops there
// (`rpc_malformed`; docs/audit-bench.md).
const client = createPublicClient({
  transport: http(rpc, { retryCount: 1, maxResponseBodySize: false }),
});
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
