/**
 * A Cloudflare Worker served by workerd on loopback, for the runtime suite and the runtimes bench:
 * the entry bundled by esbuild as for browsers (ESM, code splitting, `node:*` left external; a
 * page never reaches the chunks that need Node), the core's `priv_stark.wasm` given as a `wasm`
 * module (imported as `./priv_stark.wasm`, a compiled `WebAssembly.Module`: workerd cannot compile
 * WebAssembly from bytes at run time) and its bytes as a `data` module (`./priv_stark.bin`), a
 * generated configuration, and the process stopped on `close()`.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';
import { freePort } from './free-port.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** A running workerd. */
export interface RunningWorkerd {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** What workerd printed so far. */
  log(): string;
  close(): Promise<void>;
}

/** workerd's configuration: one worker of ES modules, the core as `wasm` and `data` modules. */
function config(modules: readonly string[], entry: string, port: number): string {
  const list = [entry, ...modules.filter((m) => m !== entry)]
    .map((m) => `(name = ${JSON.stringify(m)}, esModule = embed ${JSON.stringify(m)}),`)
    .join('\n    ');
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .verifier)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const verifier :Workerd.Worker = (
  modules = [
    ${list}
    (name = "priv_stark.wasm", wasm = embed "priv_stark.wasm"),
    (name = "priv_stark.bin", data = embed "priv_stark.wasm"),
  ],
  compatibilityDate = "2026-11-01",
);
`;
}

/**
 * Bundles `entry` (the package's own `priv-stark/client` mapped to its sources) and serves it
 * with the workerd binary at `workerd`; resolves once the worker answers.
 * @throws when workerd exits or does not answer within `readyMs` (default 60 s)
 */
export async function startWorkerd(
  workerd: string,
  entry: string,
  options: { readyMs?: number } = {},
): Promise<RunningWorkerd> {
  const dir = mkdtempSync(join(tmpdir(), 'priv-stark-workerd-'));
  const result = await build({
    entryPoints: [entry],
    alias: { 'priv-stark/client': `${ROOT}src/client/index.ts` },
    external: ['node:*', './priv_stark.wasm', './priv_stark.bin'],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outdir: dir,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    write: false,
    logLevel: 'silent',
  });
  const modules: string[] = [];
  for (const file of result.outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.text);
    modules.push(relative(dir, file.path));
  }
  writeFileSync(join(dir, 'priv_stark.wasm'), readFileSync(`${ROOT}build/wasm/priv_stark.wasm`));
  const port = await freePort();
  const main = modules.find((m) => !m.startsWith('chunks/'))!;
  writeFileSync(join(dir, 'config.capnp'), config(modules, main, port));
  let output = '';
  const child: ChildProcess = spawn(workerd, ['serve', join(dir, 'config.capnp')], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  const url = `http://127.0.0.1:${port}/`;
  const running: RunningWorkerd = {
    url,
    log: () => output,
    close: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const deadline = Date.now() + (options.readyMs ?? 60_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const answered = await fetch(url).then(
      () => true,
      () => false,
    );
    if (answered) return running;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await running.close();
  throw new Error(`workerd did not start:\n${output}`);
}
