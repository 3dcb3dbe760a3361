// Verification on WebAssembly inside Cloudflare's workerd, which cannot compile WebAssembly from
// bytes at run time: the worker (fixtures/workerd-worker.ts, bundled as for browsers) gets the
// compiled module by importing a `wasm` module and loads the core with `priv-stark/client`'s
// `loadWasmCore({ module })`. workerd listens on loopback; the fixture verifies, its tampered twin
// is refused; and the same module's bytes are refused by workerd (why the loader takes a compiled
// module).

import { mkdtempSync, rmSync, writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { bundleForBrowser } from '../e2e/browser/bundle.js';
import { installedRuntimes, ROOT } from './helpers.js';

const rt = installedRuntimes();
const proof = readFileSync(`${ROOT}test/fixtures/spend/proof.bin`);
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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** workerd's configuration: one worker of ES modules and the core as a `wasm` module. */
function config(modules: readonly string[], entry: string, port: number): string {
  const list = [entry, ...modules.filter((m) => m !== entry)]
    .map((m) => `(name = ${JSON.stringify(m)}, esModule = embed ${JSON.stringify(m)})`)
    .join(',\n      ');
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .verifier)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const verifier :Workerd.Worker = (
  modules = [
      ${list},
      (name = "priv_stark.wasm", wasm = embed "priv_stark.wasm"),
      (name = "priv_stark.bin", data = embed "priv_stark.wasm"),
  ],
  compatibilityDate = "2026-11-01",
);
`;
}

let dir = '';
let workerd: ChildProcess | undefined;
let base = '';
let log = '';

async function post(body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(base, { method: 'POST', body: JSON.stringify(body) });
  return { status: response.status, json: await response.json().catch(() => null) };
}

beforeAll(async () => {
  if (!rt) return;
  dir = mkdtempSync(join(tmpdir(), 'priv-stark-workerd-'));
  const bundle = await bundleForBrowser(`${ROOT}test/runtimes/fixtures/workerd-worker.ts`, {
    alias: { 'priv-stark/client': `${ROOT}src/client/index.ts` },
    external: ['./priv_stark.wasm', './priv_stark.bin'],
  });
  for (const [path, text] of Object.entries(bundle.files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  writeFileSync(join(dir, 'priv_stark.wasm'), readFileSync(`${ROOT}build/wasm/priv_stark.wasm`));
  const port = await freePort();
  writeFileSync(join(dir, 'config.capnp'), config(Object.keys(bundle.files), bundle.entry, port));
  base = `http://127.0.0.1:${port}/`;
  workerd = spawn(rt.workerd, ['serve', join(dir, 'config.capnp'), '--experimental'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  workerd.stdout?.on('data', (chunk: Buffer) => {
    log += chunk;
  });
  workerd.stderr?.on('data', (chunk: Buffer) => {
    log += chunk;
  });
  // Ready once it answers (a GET is refused by the worker with 405).
  for (let attempt = 0; attempt < 300; attempt++) {
    if (workerd.exitCode !== null) throw new Error(`workerd exited:\n${log}`);
    const up = await fetch(base).then(
      (r) => r.status,
      () => 0,
    );
    if (up === 405) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`workerd did not answer:\n${log}`);
});

afterAll(() => {
  workerd?.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(rt === null)(
  'workerd: verification on WebAssembly from a precompiled module',
  () => {
    it('verifies the fixture and refuses its tampered twin', async () => {
      const good = await post({ proof: proof.toString('hex'), publicInputs: inputs });
      expect(good, log).toEqual({ status: 200, json: { backend: 'wasm', verdict: { ok: true } } });
      const tampered = await post({
        proof: proof.toString('hex'),
        publicInputs: { ...inputs, amount: `${BigInt(inputs.amount) + 1n}` },
      });
      expect(tampered).toEqual({
        status: 200,
        json: { backend: 'wasm', verdict: { ok: false, code: 'invalid_proof' } },
      });
    });

    it('cannot compile the same module from its bytes there (the reason for the module entry)', async () => {
      const response = await fetch(`${base}from-bytes`);
      const outcome = (await response.json()) as { loaded: boolean; error?: string };
      expect(outcome.loaded).toBe(false);
      expect(outcome.error).toMatch(/^CompileError: .*disallowed/);
    });
  },
);
