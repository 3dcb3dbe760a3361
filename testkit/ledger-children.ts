/** Spawning the ledger worker (`ledger-worker.ts`) as a real child process and talking to it by lines. */

import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const WORKER = fileURLToPath(new URL('./ledger-worker.ts', import.meta.url));

/** A running worker. */
export interface Child {
  readonly process: ChildProcess;
  /** Parsed JSON lines printed so far. */
  readonly lines: unknown[];
  /** Resolves with the first line matching `predicate`. */
  waitFor(
    predicate: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/**
 * Starts a worker with its JSON argument: the ledger worker, or the `script` given (another worker
 * printing JSON lines; a `.mjs` one runs on plain Node, without tsx), with `env` added to this
 * process's environment.
 */
export function startWorker(
  args: unknown,
  options: { script?: string; env?: NodeJS.ProcessEnv } = {},
): Child {
  const script = options.script ?? WORKER;
  const loader = script.endsWith('.mjs') ? [] : ['--import', 'tsx'];
  const child = spawn(process.execPath, [...loader, script, JSON.stringify(args)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  const lines: unknown[] = [];
  const waiters: {
    predicate: (line: Record<string, unknown>) => boolean;
    resolve: (line: Record<string, unknown>) => void;
  }[] = [];
  let buffer = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    buffer += chunk;
    for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
      const text = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (!text.trim()) continue;
      const line = JSON.parse(text) as Record<string, unknown>;
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.predicate(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stderr: string;
  }>((resolve) => {
    child.on('exit', (code, signal) => {
      // let the last stdout chunk arrive before reporting
      setImmediate(() => resolve({ code, signal, stderr }));
    });
  });
  return {
    process: child,
    lines,
    exited,
    waitFor(predicate, timeoutMs = 60_000) {
      const found = lines.find((line) => predicate(line as Record<string, unknown>));
      if (found) return Promise.resolve(found as Record<string, unknown>);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `worker: no matching line within ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`,
              ),
            ),
          timeoutMs,
        );
        void exited.then(({ code, signal }) => {
          clearTimeout(timer);
          reject(
            new Error(
              `worker exited (${code ?? signal}) before a matching line; stderr: ${stderr.slice(-2000)}`,
            ),
          );
        });
        waiters.push({
          predicate,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
      });
    },
  };
}
