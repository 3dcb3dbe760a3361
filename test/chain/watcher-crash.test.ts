// kill -9 at the deposit watcher's crash points (PRIV_STARK_FAILPOINT), on the shared node: the
// real `priv-stark pool serve` runs its watcher on a timer until it kills itself right after
// sending an acceptance (watcher:after-accept) or right after shielding (watcher:after-shield),
// before recording either; a pool node restarted on the same data directory then shields the
// deposit exactly once — no second acceptance sent, no second leaf — and the deposit paid after
// the restart is shielded too: nothing twice, nothing skipped. The node logs at debug level, and
// its log holds neither the acceptor's key nor the acceptance's signature (so nor its raw bytes).

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import {
  noteCommitment,
  openDepositWatch,
  openStore,
  WATCHED_STATES,
} from '../../src/ledger/index.js';
import { type RunningService, SERVICE_DEFAULTS, startService } from '../../src/service/index.js';
import { NO_EPOCH_GRID } from '../../src/scheme/index.js';
import type { Chain } from '../../testkit/chain.js';
import {
  depositDirect,
  depositor,
  type EscrowFixture,
  escrowFixture,
  readDeposit,
  STATE,
  sharedChain,
  tickets,
} from './shared.js';
import { acceptorKey } from './watcher-harness.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const N = 10;
const LEASE_TTL_MS = 1000;
const dirs: string[] = [];

/** `pool serve` over `dataDir` with the crash point set, polling every 100 ms. */
function crashingNode(f: EscrowFixture, keyFile: string, dataDir: string, point: string) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      MAIN,
      'pool',
      'serve',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--chain-rpc',
      f.chain.url,
      '--escrow',
      f.escrow,
      '--operator-key-file',
      `acceptor=${keyFile}`,
    ],
    {
      env: {
        ...process.env,
        PRIV_STARK_FAILPOINT: point,
        CHAIN_POLL_INTERVAL_MS: '100',
        // The killed node's lease over the watcher expires soon after the kill.
        CHAIN_WATCHER_LEASE_TTL_MS: String(LEASE_TTL_MS),
        VERIFY_THREADS: '0',
        LOG_LEVEL: 'debug',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  const collect = (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const state = { exited: false, stderr: () => stderr };
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      state.exited = true;
      resolve(signal ?? code);
    }),
  );
  return { child, exited, stderr: () => stderr, state };
}

/**
 * Resolves once `check` holds, checking every 100 ms; fails after `ms`, or at once when `alive`
 * says the process it waits on has gone (with what it wrote).
 */
async function until(
  check: () => Promise<boolean>,
  what: string,
  ms = 150_000,
  alive?: { exited: boolean; stderr: () => string },
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (alive?.exited)
      throw new Error(`the node exited while waiting for ${what}: ${alive.stderr().slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The pool node restarted in this process on `dataDir`, polling only when asked. */
function restart(f: EscrowFixture, keyFile: string, dataDir: string): Promise<RunningService> {
  return startService(
    {
      ...SERVICE_DEFAULTS,
      epoch: NO_EPOCH_GRID,
      facilitator: false,
      poolPort: 0,
      dataDir,
      logLevel: 'silent',
      verifyThreads: 0,
      operatorToken: 'watcher-crash-operator-token-01',
      chain: {
        rpcUrl: f.chain.url,
        escrow: f.escrow,
        keyFiles: [`acceptor=${keyFile}`],
        finality: { confirmations: N },
        pollIntervalMs: 0,
        watcherLeaseTtlMs: LEASE_TTL_MS,
      },
    },
    () => undefined,
  );
}

/** What the killed node left: the leaves, and deposit 0 as the watcher recorded it. */
async function recorded(dataDir: string) {
  const store = await openStore(await loadCore(), { dataDir });
  const watch = openDepositWatch({ dataDir });
  try {
    const [binding] = await watch.bindings();
    const [deposit] = await watch.deposits(binding!.source, WATCHED_STATES, 1);
    return { leaves: (await store.state()).size, state: deposit?.state, sentTx: deposit?.sentTx };
  } finally {
    await watch.close();
    await store.close();
  }
}

describe('kill -9 at the deposit watcher’s crash points', () => {
  let chain: Chain;
  let core: PrivStarkCore;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    chain = sharedChain();
    core = await loadCore();
  });
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function setUp() {
    const f = await escrowFixture(chain);
    const acceptor = await acceptorKey(f);
    const dataDir = mkdtempSync(join(tmpdir(), 'priv-stark-watcher-crash-'));
    dirs.push(dataDir);
    const [first, second] = await tickets([31_000n, 32_000n]);
    await depositDirect(f, await depositor(f, 31_000n), 31_000n, first!.pre);
    await chain.test.mine({ blocks: N });
    return { f, acceptor, dataDir, first: first!, second: second! };
  }

  /** Restarts, then checks the deposit is shielded once and a later one is shielded too. */
  async function afterRestart(
    s: Awaited<ReturnType<typeof setUp>>,
    acceptances: number,
  ): Promise<void> {
    const service = await restart(s.f, s.acceptor.file, s.dataDir);
    try {
      const watcher = service.depositWatcher!;
      const sent = () =>
        s.f.chain.public.getTransactionCount({ address: s.acceptor.address as Hex });
      // It stands by until the killed node's lease expires (1 s), then reads the chain.
      await until(
        async () => {
          await watcher.poll();
          return watcher.status().active;
        },
        'the killed node’s lease to expire',
        10_000,
      );
      await chain.test.mine({ blocks: N });
      await watcher.poll();
      const firstNote = noteCommitment(core, s.first.amount, s.first.pre);
      expect(await service.ledger.leaves(0, 10)).toEqual([firstNote]);
      // No acceptance sent again for it.
      expect(await sent()).toBe(acceptances);
      // Nothing skipped: the deposit after the restart is shielded as usual.
      await depositDirect(s.f, await depositor(s.f, 32_000n), 32_000n, s.second.pre);
      await chain.test.mine({ blocks: N });
      await watcher.poll();
      await chain.test.mine({ blocks: N });
      await watcher.poll();
      expect(await service.ledger.leaves(0, 10)).toEqual([
        firstNote,
        noteCommitment(core, s.second.amount, s.second.pre),
      ]);
      expect(watcher.status().deposits).toMatchObject({ shielded: 2, accepted: 0, pending: 0 });
    } finally {
      await service.close();
    }
  }

  it('watcher:after-accept — the acceptance sent, not recorded: read back from the chain, shielded once', async () => {
    const s = await setUp();
    const node = crashingNode(s.f, s.acceptor.file, s.dataDir, 'watcher:after-accept');
    children.push(node.child);
    expect(await node.exited, node.stderr()).toBe('SIGKILL');
    expect((await readDeposit(s.f, 0n)).state).toBe(STATE.Accepted);
    // Killed before the decision was recorded.
    expect(await recorded(s.dataDir)).toMatchObject({ leaves: 0, state: 'pending', sentTx: null });
    await afterRestart(s, 1);
  });

  it('watcher:after-shield — shielded, not recorded: the ledger’s deposit event answers, never twice', async () => {
    const s = await setUp();
    const node = crashingNode(s.f, s.acceptor.file, s.dataDir, 'watcher:after-shield');
    children.push(node.child);
    // The node accepts on its own timer; the acceptance becomes final as blocks are mined.
    await until(
      async () => (await readDeposit(s.f, 0n)).state === STATE.Accepted,
      'the acceptance',
      150_000,
      node.state,
    );
    await chain.test.mine({ blocks: N });
    expect(await node.exited, node.stderr()).toBe('SIGKILL');
    // Killed with the note in the tree and the deposit not yet recorded as shielded.
    const left = await recorded(s.dataDir);
    expect(left).toMatchObject({ leaves: 1, state: 'accepted' });
    // Its log at debug level: the acceptance is there, its key, signature and bytes are not.
    const log = node.stderr();
    expect(log).toContain('acceptance sent');
    const tx = await chain.public.getTransaction({ hash: left.sentTx as Hex });
    const key = readFileSync(s.acceptor.file, 'utf8').trim().slice(2);
    for (const secret of [key, tx.r.slice(2), tx.s.slice(2)])
      expect(log.toLowerCase().includes(secret.toLowerCase())).toBe(false);
    await afterRestart(s, 1);
  });
});
