// A real pool for the log audit's suites: a wallet's deposits, a merge, a transfer to a second
// wallet, an exit whose payout failed (its refund) — every proof real, made through a pool node
// over a real socket — written to a store in `dataDir` with its log digests recorded, then closed.

import type { FastifyInstance } from 'fastify';

import { extendLogDigests } from '../../../src/audit/index.js';
import { MemoryWalletStore, Wallet } from '../../../src/client/index.js';
import type { PrivStarkCore } from '../../../src/core/index.js';
import { Ledger, openStore } from '../../../src/ledger/index.js';
import { buildPoolNode, PoolNodeClient } from '../../../src/pool-node/index.js';

const TOKEN = 'operator-token-for-the-audit-0123456789';
const DESTINATION = 'eip155:1:0x000000000000000000000000000000000000dEaD';

/** Writes the real pool into `dataDir`, one deposit of each of `deposits` (atomic units). */
export async function writeRealPool(
  core: PrivStarkCore,
  dataDir: string,
  deposits: readonly bigint[],
): Promise<void> {
  const store = await openStore(core, { dataDir });
  const ledger = new Ledger({ core, store, checkpointIntervalMs: 600_000 });
  const app: FastifyInstance = await buildPoolNode({
    ledger,
    operatorToken: TOKEN,
    logger: false,
    logDigestIntervalMs: 0,
    handOver: { max: 1_000_000, timeWindowMs: 60_000 },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const operator = new PoolNodeClient(url, { token: TOKEN });
    const wallet = await Wallet.create({ core, pool: url, store: new MemoryWalletStore() });
    const other = await Wallet.create({ core, pool: url, store: new MemoryWalletStore() });
    for (const amount of deposits) {
      const ticket = await wallet.depositTicket(amount.toString());
      await operator.deposit(ticket.amount, ticket.pre);
    }
    const step = async () => {
      await ledger.checkpoint();
      await wallet.sync();
    };
    await step();
    await wallet.mergeNotes();
    await step();
    await wallet.transfer(other.address, 100_000n);
    await step();
    const exit = await wallet.exit(DESTINATION, 50_000n);
    await step();
    await operator.payout(exit.transaction, 'paying');
    await operator.payout(exit.transaction, 'failed');
    await step();
    await extendLogDigests(store);
  } finally {
    await app.close();
    await store.close();
  }
}
