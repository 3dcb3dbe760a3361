// The published verification API (`priv-stark`: `loadCore()` then `core.verifySpend`) on the
// checked-in fixture under each runtime the package supports: the maintained Node lines (22, 24,
// 26), Bun and Deno, on both backends, chosen by `PRIV_STARK_BACKEND` and by `loadCore({ backend })`.
// Each: the fixture verifies, its tampered twin is refused, and the process exits by itself (the
// Deno + WebAssembly hang: a verdict never came and the process never ended).

import { beforeAll, describe, expect, it } from 'vitest';

import {
  buildDist,
  type FixtureVerdict,
  installedRuntimes,
  lastJson,
  ROOT,
  runScript,
} from './helpers.js';

const rt = installedRuntimes();
const SCRIPT = `${ROOT}testkit/verify-fixture.mjs`;

type Runtime = { name: string; command: string; args: string[]; byOption: boolean };
const RUNTIMES: Runtime[] = rt
  ? [
      { name: 'node 22', command: rt.node['22'], args: [SCRIPT], byOption: false },
      { name: 'node 24', command: rt.node['24'], args: [SCRIPT], byOption: false },
      { name: 'node 26', command: rt.node['26'], args: [SCRIPT], byOption: false },
      { name: 'bun', command: rt.bun, args: [SCRIPT], byOption: true },
      { name: 'deno', command: rt.deno, args: ['run', '-A', SCRIPT], byOption: true },
    ]
  : [];

const cases = RUNTIMES.flatMap((runtime) =>
  (['native', 'wasm'] as const).flatMap((backend) => [
    { ...runtime, backend, how: 'PRIV_STARK_BACKEND' },
    ...(runtime.byOption ? [{ ...runtime, backend, how: 'loadCore({ backend })' }] : []),
  ]),
);

beforeAll(buildDist);

describe.skipIf(rt === null)('the published verification API on each runtime', () => {
  it.each(cases)(
    '$name, $backend by $how: the fixture verifies, the tampered twin does not, the process exits',
    async ({ command, args, backend, how }) => {
      const byEnv = how === 'PRIV_STARK_BACKEND';
      const run = await runScript(command, [...args, byEnv ? 'env' : backend], {
        env: { PRIV_STARK_BACKEND: byEnv ? backend : '', NO_COLOR: '1' },
      });
      const result = lastJson<FixtureVerdict>(run);
      expect(result.backend).toBe(backend);
      expect(result.verdict).toEqual({ ok: true });
      expect(result.tampered).toEqual({ ok: false, code: 'invalid_proof' });
      expect(run.signal).toBeNull();
      expect(run.status).toBe(0);
    },
  );
});
