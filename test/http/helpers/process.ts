/**
 * `priv-stark start` as a real child process (through tsx, so no build is needed): waits for its
 * "Facilitator listening" line and gives its URL. For tests that need separate processes — two
 * instances on one PostgreSQL, SIGKILL during load.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url));

/** A running facilitator process. */
export interface FacilitatorProcess {
  readonly process: ChildProcess;
  /** Base URL of its facilitator listener. */
  readonly url: string;
  /** Resolves when it has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
  /** Everything it printed so far. */
  output(): string;
}

/**
 * Starts `priv-stark start --port 0 --no-pool-node …` and waits until it listens.
 * @param args more flags (e.g. `--data-dir`, `--database-url`)
 * @param env more environment (e.g. `API_KEYS`)
 */
export async function startFacilitatorProcess(
  args: readonly string[],
  env: Record<string, string> = {},
  timeoutMs = 60_000,
): Promise<FacilitatorProcess> {
  return spawnStart(['--no-pool-node', ...args], env, timeoutMs, false);
}

/** A running service with both listeners. */
export interface ServiceProcess extends FacilitatorProcess {
  /** Base URL of its pool node. */
  readonly poolUrl: string;
}

/**
 * Starts `priv-stark start --port 0 --pool-port 0 …` (both listeners) and waits until both listen.
 * @param args more flags (e.g. `--workers 2`, `--data-dir`)
 */
export async function startServiceProcess(
  args: readonly string[],
  env: Record<string, string> = {},
  timeoutMs = 60_000,
): Promise<ServiceProcess> {
  return spawnStart(['--pool-port', '0', ...args], env, timeoutMs, true) as Promise<ServiceProcess>;
}

async function spawnStart(
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs: number,
  poolNode: boolean,
): Promise<FacilitatorProcess | ServiceProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', MAIN, 'start', '--port', '0', '--host', '127.0.0.1', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LOG_LEVEL: 'info', ...env },
    },
  );
  let output = '';
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    output: string;
  }>((resolve) => {
    child.on('exit', (code, signal) => setImmediate(() => resolve({ code, signal, output })));
  });
  const urls = await new Promise<{ url: string; poolUrl: string | null }>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new Error(`facilitator did not start within ${timeoutMs} ms:\n${output.slice(-3000)}`),
        ),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /"url":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*"msg":"Facilitator listening"/.exec(
        output,
      );
      const pool = /"url":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*"msg":"pool node ready"/.exec(output);
      if (match && (!poolNode || pool)) {
        clearTimeout(timer);
        resolve({ url: match[1]!, poolUrl: pool?.[1] ?? null });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(
        new Error(
          `facilitator exited (${code ?? signal}) before listening:\n${output.slice(-3000)}`,
        ),
      );
    });
  });
  return {
    process: child,
    url: urls.url,
    ...(urls.poolUrl ? { poolUrl: urls.poolUrl } : {}),
    exited,
    output: () => output,
  };
}

/** POSTs a JSON body; resolves with the status and parsed body, or `null` when the connection failed. */
export async function postJson(
  url: string,
  body: unknown,
  key: string,
): Promise<{ status: number; body: Record<string, unknown> } | null> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  } catch {
    return null;
  }
}
