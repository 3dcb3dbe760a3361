/**
 * A devnet pool on loopback for the client suites: a SQLite ledger in a temporary directory (or a
 * PostgreSQL database, `databaseUrl`), the pool with a fast checkpoint timer, and its pool node
 * listening on a free port. Deposits go through the node's operator route, as the operator's would.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { PrivStarkCore } from '../../../src/core/index.js';
import { buildPoolNode, PoolNodeClient } from '../../../src/pool-node/index.js';
import { Ledger, openStore } from '../../../src/ledger/index.js';

export const OPERATOR_TOKEN = 'operator-token-0123456789';

export interface Devnet {
  readonly pool: Ledger;
  readonly nodeUrl: string;
  readonly operator: PoolNodeClient;
  readonly dir: string;
  /** Publishes a checkpoint now (when the tree changed). */
  checkpoint(): Promise<void>;
  close(): Promise<void>;
}

export async function startDevnet(
  core: PrivStarkCore,
  options: { checkpointIntervalMs?: number; clock?: () => number; databaseUrl?: string } = {},
): Promise<Devnet> {
  const dir = mkdtempSync(join(tmpdir(), 'priv-stark-client-'));
  const store = await openStore(
    core,
    options.databaseUrl ? { databaseUrl: options.databaseUrl } : { dataDir: join(dir, 'pool') },
  );
  const pool = new Ledger({
    core,
    store,
    checkpointIntervalMs: options.checkpointIntervalMs ?? 100,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  pool.start();
  const node = await buildPoolNode({ ledger: pool, operatorToken: OPERATOR_TOKEN, logger: false });
  await node.listen({ port: 0, host: '127.0.0.1' });
  const nodeUrl = `http://127.0.0.1:${(node.server.address() as { port: number }).port}`;
  return {
    pool,
    nodeUrl,
    dir,
    operator: new PoolNodeClient(nodeUrl, { token: OPERATOR_TOKEN }),
    checkpoint: async () => {
      await pool.checkpoint();
    },
    close: async () => {
      await node.close();
      await pool.stop();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
