// Verification on WebAssembly inside Cloudflare's workerd, which cannot compile WebAssembly from
// bytes at run time: the worker (testkit/workerd-worker.ts, served by testkit/workerd.ts) imports
// the compiled module and loads the core with `priv-stark/client`'s `loadWasmCore({ module })`.
// workerd listens on loopback; the fixture verifies, its tampered twin is refused; and the same
// module's bytes are refused by workerd (why the loader takes a compiled module).

import { readFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningWorkerd, startWorkerd } from '../../testkit/workerd.js';
import { installedRuntimes, ROOT } from './helpers.js';

const rt = installedRuntimes();
const proof = readFileSync(`${ROOT}test/fixtures/spend/proof.bin`).toString('hex');
const fixture = JSON.parse(readFileSync(`${ROOT}test/fixtures/spend/public.json`, 'utf8')) as {
  [field in 'root' | 'nullifier' | 'commitment' | 'amount' | 'context']: string;
};
const inputs = {
  root: fixture.root,
  nullifier: fixture.nullifier,
  change: fixture.commitment,
  amount: fixture.amount,
  ctx: fixture.context,
};

let workerd: RunningWorkerd | undefined;

async function post(body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(workerd!.url, { method: 'POST', body: JSON.stringify(body) });
  return { status: response.status, json: await response.json().catch(() => null) };
}

beforeAll(async () => {
  if (rt) workerd = await startWorkerd(rt.workerd, `${ROOT}testkit/workerd-worker.ts`);
});
afterAll(() => workerd?.close());

describe.skipIf(rt === null)(
  'workerd: verification on WebAssembly from a precompiled module',
  () => {
    it('verifies the fixture and refuses its tampered twin', async () => {
      const good = await post({ proof, publicInputs: inputs });
      expect(good, workerd?.log()).toEqual({
        status: 200,
        json: { backend: 'wasm', verdict: { ok: true } },
      });
      const tampered = await post({
        proof,
        publicInputs: { ...inputs, amount: `${BigInt(inputs.amount) + 1n}` },
      });
      expect(tampered).toEqual({
        status: 200,
        json: { backend: 'wasm', verdict: { ok: false, code: 'invalid_proof' } },
      });
    });

    it('cannot compile the same module from its bytes there (the reason for the module entry)', async () => {
      const response = await fetch(`${workerd!.url}from-bytes`);
      const outcome = (await response.json()) as { loaded: boolean; error?: string };
      expect(outcome.loaded).toBe(false);
      expect(outcome.error).toMatch(/^CompileError: .*disallowed/);
    });
  },
);
