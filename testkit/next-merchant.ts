/**
 * The Next.js merchant example (examples/next-merchant/: stock @x402/next 2.25 with this project's
 * scheme server and facilitator client) as a real process on loopback: made ready by
 * scripts/next-merchant.mjs (its own dependencies installed and `next build` run, each only when
 * its inputs changed), then `next start` on a free loopback port, telemetry off, with the
 * merchant's settings in its environment. Next keeps Node's default 16 KiB header limit.
 */

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** The example's directory. */
export const NEXT_MERCHANT_DIR = join(ROOT, 'examples', 'next-merchant');

/** A running Next.js merchant. */
export interface NextMerchant {
  readonly url: string;
  /** What the server printed, for failure messages. */
  output(): string;
  close(): Promise<void>;
}

/** Installs and builds the example unless nothing changed since the last time (minutes, once). */
export function prepareNextMerchant(): void {
  const result = spawnSync(process.execPath, [join(ROOT, 'scripts', 'next-merchant.mjs')], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0)
    throw new Error(`scripts/next-merchant.mjs failed (status ${result.status ?? result.signal})`);
}

/** `next start` of the built example, answering once `GET /weather` does. */
export async function startNextMerchant(settings: {
  facilitatorUrl: string;
  apiKey: string;
  payTo: string;
}): Promise<NextMerchant> {
  prepareNextMerchant();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    process.execPath,
    [
      join(NEXT_MERCHANT_DIR, 'node_modules', 'next', 'dist', 'bin', 'next'),
      'start',
      '--port',
      String(port),
      '--hostname',
      '127.0.0.1',
    ],
    {
      cwd: NEXT_MERCHANT_DIR,
      env: {
        ...process.env,
        NODE_ENV: 'production',
        NEXT_TELEMETRY_DISABLED: '1',
        FACILITATOR_URL: settings.facilitatorUrl,
        API_KEY: settings.apiKey,
        PAY_TO: settings.payTo,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`next start exited ${child.exitCode}: ${output}`);
    const answered = await fetch(`${url}/weather`).then(
      async (r) => {
        await r.body?.cancel();
        return true;
      },
      () => false,
    );
    if (answered) break;
    if (i >= 600) {
      await close();
      throw new Error(`next start did not answer within 60 s: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, output: () => output, close };
}
