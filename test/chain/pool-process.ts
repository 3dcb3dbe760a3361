// `priv-stark pool serve` in a process of its own, as an operator runs it: the built dist/ on
// plain Node (a third of the start-up of the sources through tsx), its chain flags and
// environment as given, and everything it writes captured — pino's JSON lines on stdout, parsed
// as they come, and the raw text of both streams for the log-privacy scans.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** A running `pool serve`. */
export interface PoolProcess {
  readonly child: ChildProcess;
  /** Its log lines so far (stdout's JSON lines). */
  readonly lines: Record<string, unknown>[];
  /** Everything it wrote so far, stdout and stderr, as written. */
  output(): string;
  /**
   * The first log line matching `predicate`, checked every 50 ms; fails after `ms` (a hang guard),
   * or at once, with its output, when the process exits first.
   */
  waitFor(
    predicate: (line: Record<string, unknown>) => boolean,
    what: string,
    ms?: number,
  ): Promise<Record<string, unknown>>;
  /** Its `GET /health` body, once it has said it is ready. */
  health(): Promise<Record<string, unknown>>;
  /** Resolves with the exit's signal (or code). */
  readonly exited: Promise<NodeJS.Signals | number | null>;
  /** SIGTERM (a graceful stop), then its exit. */
  stop(): Promise<NodeJS.Signals | number | null>;
}

/** Starts `pool serve` with `args`, this process's environment plus `env`. */
export function poolProcess(args: readonly string[], env: NodeJS.ProcessEnv): PoolProcess {
  if (!existsSync(MAIN)) throw new Error('dist/ is not built: run node scripts/build.mjs ts');
  const child = spawn(process.execPath, [MAIN, 'pool', 'serve', ...args], {
    env: { ...process.env, VERIFY_THREADS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  let text = '';
  let pending = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    text += chunk;
    pending += chunk;
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // Not a log line (the scans still read it in the text).
      }
    }
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    text += chunk;
  });
  let done = false;
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      done = true;
      resolve(signal ?? code);
    }),
  );
  const running: PoolProcess = {
    child,
    lines,
    output: () => text,
    async waitFor(predicate, what, ms = 60_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = lines.find(predicate);
        if (found) return found;
        if (done) throw new Error(`pool serve exited before ${what}: ${text.slice(-2000)}`);
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${what}: ${text.slice(-2000)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async health() {
      const ready = await running.waitFor((l) => l.msg === 'pool node ready', 'the pool node');
      const reply = await fetch(`${ready.url as string}/health`);
      return (await reply.json()) as Record<string, unknown>;
    },
    exited,
    async stop() {
      if (!done) child.kill('SIGTERM');
      return exited;
    },
  };
  return running;
}

/** The chain flags of a pool over `escrow` through `rpcUrl`, with the hot keys' files. */
export function chainArgs(rpcUrl: string, escrow: string, keyFiles: readonly string[]): string[] {
  return [
    '--chain-rpc',
    rpcUrl,
    '--escrow',
    escrow,
    ...keyFiles.flatMap((file) => ['--operator-key-file', file]),
  ];
}
