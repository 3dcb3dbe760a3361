// On a Node older than the supported lines, `priv-stark` runs itself again on the checkout's pinned
// Node 24 (src/cli/supported-node.ts): better-sqlite3 13 does not load on Node 20. This machine's
// own Node (`/usr/bin/node`, Debian's 20 on the build machines) is the old one; the suite is
// skipped where that Node is a supported line, since nothing is rerun there.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, describe, expect, it } from 'vitest';

import { freePort } from '../../testkit/free-port.js';
import { buildDist } from '../runtimes/helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const MACHINE_NODE = '/usr/bin/node';
const machineVersion = spawnSync(MACHINE_NODE, ['-p', 'process.versions.node'], {
  encoding: 'utf8',
}).stdout?.trim();
const oldNode = machineVersion !== undefined && Number(machineVersion.split('.')[0]) < 22;

/** The machine's Node without the test run's Node 24 ahead of it on PATH. */
function machineEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { PRIV_STARK_RERUN: _, ...env } = process.env;
  return { ...env, ...extra };
}

/** `priv-stark start` on this machine's Node, on free ports over `dataDir`; its output so far. */
async function startOnMachineNode(dataDir: string) {
  buildDist();
  const [port, poolPort] = [await freePort(), await freePort()];
  const child = spawn(
    MACHINE_NODE,
    [CLI, 'start', '--data-dir', dataDir, '--port', String(port), '--pool-port', String(poolPort)],
    { env: machineEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return { child, port, output: () => output };
}

describe.skipIf(!oldNode)(`priv-stark on this machine's Node ${machineVersion}`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'priv-stark-old-node-'));
  afterAll(() => {
    // A second run left behind by a failing test (its parent killed) is found by its data dir.
    spawnSync('pkill', ['-f', dataDir]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs itself on the pinned Node 24 and says so; told not to, it stays on the old line', () => {
    buildDist();
    const rerun = spawnSync(MACHINE_NODE, [CLI, 'doctor', '--json'], {
      encoding: 'utf8',
      env: machineEnv(),
    });
    expect(rerun.status, rerun.stderr).toBe(0);
    expect(rerun.stderr).toContain(`Node v${machineVersion} is not a supported line`);
    const report = JSON.parse(rerun.stdout) as { node: string; nodeSupported: boolean };
    expect(report.node).toMatch(/^v24\./);
    expect(report.nodeSupported).toBe(true);

    // Must-fail twin: a second run (the marker set) is never rerun: the old line reports itself.
    const stayed = spawnSync(MACHINE_NODE, [CLI, 'doctor', '--json'], {
      encoding: 'utf8',
      env: machineEnv({ PRIV_STARK_RERUN: '1' }),
    });
    const old = JSON.parse(stayed.stdout) as { node: string; nodeSupported: boolean };
    expect(old.node).toBe(`v${machineVersion}`);
    expect(old.nodeSupported).toBe(false);
  });

  it('a service started on the old Node serves, and SIGTERM reaches its graceful shutdown', async () => {
    const { child, port, output } = await startOnMachineNode(dataDir);
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => resolve(code)),
    );
    let health: { status: string } | null = null;
    for (let i = 0; i < 120 && health === null; i++) {
      health = await fetch(`http://127.0.0.1:${port}/health`)
        .then((reply) => reply.json() as Promise<{ status: string }>)
        .catch(() => null);
      if (health === null) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(health?.status, output()).toBe('ok');
    child.kill('SIGTERM');
    expect(await exited, output()).toBe(0);
    expect(output()).toContain('SIGTERM: shutting down');
  });

  it('the first run killed outright (SIGKILL, nothing forwarded): the second stops gracefully, its port freed', async () => {
    const { child, port, output } = await startOnMachineNode(dataDir);
    const health = () =>
      fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) })
        .then((reply) => reply.ok)
        .catch(() => false);
    let up = false;
    for (let i = 0; i < 120 && !up; i++) {
      up = await health();
      if (!up) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(up, output()).toBe(true);
    child.kill('SIGKILL');
    // The second run outlives a SIGKILLed parent only until it notices: it then shuts down.
    let down = false;
    for (let i = 0; i < 60 && !down; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      down = !(await health());
    }
    expect(down, output()).toBe(true);
    // The twin of the stop: the service was up, on the pinned line, until the parent went.
    expect(output()).toContain(`Node v${machineVersion} is not a supported line`);
  });
});
