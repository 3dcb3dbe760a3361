/**
 * What the runtime suites share: the pinned runtimes (`scripts/runtimes.mjs`, installed once), the
 * built package (`dist/`, the published entry points), and running a script under a runtime with
 * a guard against a hang. A machine that cannot install the runtimes skips these suites, except in
 * CI, where that is a failure.
 */

import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// @ts-expect-error a plain .mjs script without typings
import { RuntimesUnavailableError, runtimes } from '../../scripts/runtimes.mjs';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The binaries `scripts/runtimes.mjs` returns. */
export interface Runtimes {
  readonly bun: string;
  readonly deno: string;
  readonly workerd: string;
  readonly node: Readonly<Record<'22' | '24' | '26', string>>;
}

/** The runtimes, installed when missing; `null` when they cannot be here and this is not CI. */
export function installedRuntimes(): Runtimes | null {
  try {
    return runtimes({ quiet: true }) as Runtimes;
  } catch (error) {
    if (process.env.CI || !(error instanceof RuntimesUnavailableError)) throw error;
    process.stderr.write(`runtime suites skipped: ${(error as Error).message}\n`);
    return null;
  }
}

/** Compiles `src/` to `dist/` when it changed (content-hashed: quick when nothing did). */
export function buildDist(): void {
  const built = spawnSync(process.execPath, [`${ROOT}scripts/build.mjs`, 'ts', '--quiet'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`node scripts/build.mjs ts failed:\n${built.stderr}`);
}

/** What a script printed and how it ended. */
export interface Run {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `command args` from the project's root; killed after `guardMs` (a hang guard, not a timing
 * check: the suites then report the hang).
 */
export function runScript(
  command: string,
  args: readonly string[],
  options: { env?: Record<string, string>; guardMs?: number } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    const guard = setTimeout(() => child.kill('SIGKILL'), options.guardMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (status, signal) => {
      clearTimeout(guard);
      resolve({ status, signal, stdout, stderr });
    });
  });
}

/** The last line of a run's output as JSON, or an error that shows the whole run. */
export function lastJson<T>(run: Run): T {
  const line = run.stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line) as T;
  } catch {
    throw new Error(
      `no JSON verdict (status ${run.status}, signal ${run.signal})\nstdout: ${run.stdout.slice(-2000)}\nstderr: ${run.stderr.slice(-2000)}`,
    );
  }
}

/** What `testkit/verify-fixture.mjs` prints. */
export interface FixtureVerdict {
  readonly backend: string;
  readonly version: string;
  readonly verdict: { ok: boolean; code?: string };
  readonly tampered: { ok: boolean; code?: string };
  readonly medianMs?: number;
}
