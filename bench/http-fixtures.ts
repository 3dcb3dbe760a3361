// The payments of the HTTP benches (http.bench.ts, flow.bench.ts), from the pool's fixture factory
// (testkit/fixtures.ts): one note per payment, so every payment has its own nullifier and can
// settle. Proofs are cached on disk by the factory (node_modules/.cache/priv-stark/fixtures); the
// first build takes about notes × 0.075 s on two cores (8000: about 10 minutes).
//
// Prebuild: npx tsx bench/http-fixtures.ts [notes]

import { loadCore, type PrivStarkCore } from '../src/core/index.js';
import { type Fixtures, type FixtureSpec, fixtures } from '../testkit/fixtures.js';

/** Payments in the bench set (verify cycles through all; settle spends them once each). */
export const BENCH_NOTES = Number(process.env.BENCH_NOTES ?? 8000);

/** 1 January, five years ahead: a multiple of 60 reachable with a `maxTimeoutSeconds` below 2^31. */
export function benchExpiry(now = Date.now()): number {
  return Date.UTC(new Date(now).getUTCFullYear() + 5, 0, 1) / 1000;
}

/** The fixture spec of the bench. */
export function benchSpec(notes = BENCH_NOTES): FixtureSpec {
  return { seed: 'bench-http', notes, variants: 1, expiry: benchExpiry() };
}

/** The bench's fixture set, proved now if it is not cached. */
export async function benchFixtures(core: PrivStarkCore, notes = BENCH_NOTES): Promise<Fixtures> {
  let last = 0;
  return fixtures(core, benchSpec(notes), (done, total) => {
    if (done - last >= 250 || done === total) {
      last = done;
      process.stderr.write(`[bench] proving fixtures: ${done}/${total}\n`);
    }
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const core = await loadCore();
  const started = Date.now();
  const fx = await benchFixtures(core, process.argv[2] ? Number(process.argv[2]) : BENCH_NOTES);
  process.stderr.write(
    `[bench] ${fx.payments.length} payments ready in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
  );
}
