// The raw two-core verify throughput of the core on this machine, measured in the bench process:
// the ceiling of anything that verifies each payment's proof once.

import type { PrivStarkCore } from '../src/core/index.js';
import type { Fixtures } from '../testkit/fixtures.js';

/** Verifies per second: every payment verified off the JS thread, `inFlight` at a time. */
export async function rawVerify(
  core: PrivStarkCore,
  fx: Fixtures,
  seconds: number,
  inFlight: number,
): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (performance.now() < deadline) {
      const p = fx.payments[next++ % fx.payments.length]!;
      const verdict = await core.verifySpend(p.proof, p.publicInputs);
      if (!verdict.ok) throw new Error(`fixture ${p.index} does not verify: ${verdict.code}`);
      done++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return done / ((performance.now() - started) / 1000);
}
