/**
 * @module The deposit watcher's state in the pool's PostgreSQL database: a small connection pool of
 * its own; each write one transaction. The watcher runs in one instance at a time, so no row lock
 * is needed beyond what each statement takes; commits are durable (`synchronous_commit = on`).
 */

import pg from 'pg';

import type {
  CommitmentLeaf,
  DepositWatchStore,
  WatchBinding,
  WatchCursor,
  WatchDecision,
  WatchedDeposit,
  WatchedState,
  WatchEvent,
} from './deposit-watch.js';
import {
  type BindingRow,
  bindingOf,
  commitmentLeafOf,
  type CursorRow,
  countsOf,
  cursorOf,
  type DepositRow,
  depositOf,
} from './deposit-watch-rows.js';
import { numbered, WATCH_SQL, type WatchStatement } from './deposit-watch-sql.js';
import { unavailable } from './errors.js';
import { transaction } from './postgres-transaction.js';

const SQL = Object.fromEntries(
  Object.entries(WATCH_SQL).map(([name, text]) => [
    name,
    numbered(text.replace('{states}', 'SELECT jsonb_array_elements_text(?::jsonb)')),
  ]),
) as Record<WatchStatement, string>;

/**
 * Opens the watcher's state on the database at `connectionString`, which the pool store has migrated.
 * @param onIdleError errors of idle connections (the server went away); they never crash the process
 */
export function openPostgresDepositWatch(
  connectionString: string,
  onIdleError?: (error: Error) => void,
): DepositWatchStore {
  const connections = new pg.Pool({
    connectionString,
    max: 2,
    connectionTimeoutMillis: 5000,
    statement_timeout: 15_000,
    query_timeout: 16_000,
    idle_in_transaction_session_timeout: 30_000,
    idleTimeoutMillis: 30_000,
    application_name: 'priv-stark-deposit-watch',
  });
  connections.on('error', (error) => onIdleError?.(error));
  return new PostgresDepositWatch(connections);
}

type Run = (name: WatchStatement, values: readonly unknown[]) => Promise<pg.QueryResult>;

class PostgresDepositWatch implements DepositWatchStore {
  private closed: Promise<void> | null = null;

  constructor(private readonly connections: pg.Pool) {}

  private async read<R extends pg.QueryResultRow>(
    what: string,
    name: WatchStatement,
    values: readonly unknown[],
  ): Promise<R[]> {
    try {
      return (await this.connections.query<R>(SQL[name], [...values])).rows;
    } catch (error) {
      throw unavailable(error, what);
    }
  }

  /** Runs `body` in one transaction, its statements by name. */
  private async write<T>(
    what: string,
    body: (run: Run, client: pg.PoolClient) => Promise<T>,
  ): Promise<T> {
    try {
      return await transaction(this.connections, (client) =>
        body((name, values) => client.query(SQL[name], [...values]), client),
      );
    } catch (error) {
      throw unavailable(error, what);
    }
  }

  async bindings(): Promise<WatchBinding[]> {
    return (await this.read<BindingRow>('reading the chain binding', 'bindings', [])).map(
      bindingOf,
    );
  }

  bind(binding: WatchBinding, now: number): Promise<WatchBinding> {
    return this.write('recording the chain binding', async (run, client) => {
      // Two instances binding one empty database at once: the second waits, then reads the first's.
      await client.query('LOCK TABLE chain_watch IN SHARE ROW EXCLUSIVE MODE');
      const first = (await run('bindings', [])).rows[0] as BindingRow | undefined;
      if (first) return bindingOf(first);
      const b = binding;
      await run('insertBinding', [
        b.source,
        b.chainId,
        b.escrow,
        b.token,
        b.network,
        b.deployBlock,
        b.deployBlock - 1,
        now,
      ]);
      return binding;
    });
  }

  async cursor(source: string): Promise<WatchCursor> {
    const row = (await this.read<CursorRow>('reading the watcher cursor', 'cursor', [source]))[0];
    if (!row)
      throw unavailable(new Error(`no binding for ${source}`), 'reading the watcher cursor');
    return cursorOf(row);
  }

  async record(
    source: string,
    events: readonly WatchEvent[],
    to: WatchCursor,
    now: number,
  ): Promise<void> {
    await this.write('recording escrow events', async (run) => {
      for (const e of events) {
        if (e.kind === 'deposited')
          await run('insertDeposit', [
            source,
            e.index,
            e.depositor,
            e.amount,
            e.pre,
            e.block,
            e.blockHash,
            now,
          ]);
        else if (e.kind === 'reclaimed')
          await run('reclaim', [e.block, e.blockHash, now, source, e.index]);
        else await run('settle', [e.kind, e.block, e.blockHash, now, source, e.index]);
      }
      await run('moveCursor', [to.block, to.hash, now, source]);
    });
  }

  async rewind(source: string, to: WatchCursor, now: number): Promise<void> {
    await this.write('rewinding the watcher', async (run) => {
      await run('dropAbove', [source, to.block]);
      await run('unreclaimAbove', [to.block, now, source, to.block]);
      await run('unsettleAbove', [now, source, to.block]);
      await run('moveCursor', [to.block, to.hash, now, source]);
    });
  }

  async decide(
    source: string,
    decisions: readonly WatchDecision[],
    tx: string,
    block: number,
    now: number,
  ): Promise<void> {
    await this.write('recording acceptance decisions', async (run) => {
      for (const d of decisions)
        await run('decide', [d.decision, d.reason, tx, block, now, source, d.index]);
    });
  }

  async clearSent(source: string, tx: string, now: number): Promise<void> {
    await this.write('clearing a sent acceptance', (run) => run('clearSent', [now, source, tx]));
  }

  async markShielded(source: string, index: number, leafIndex: number, now: number) {
    await this.write('marking a deposit shielded', (run) =>
      run('markShielded', [leafIndex, now, source, index]),
    );
  }

  async markUnshieldable(source: string, index: number, reason: string, now: number) {
    await this.write('marking a deposit unshieldable', (run) =>
      run('markUnshieldable', [reason, now, source, index]),
    );
  }

  async deposits(
    source: string,
    states: readonly WatchedState[],
    limit: number,
  ): Promise<WatchedDeposit[]> {
    const rows = await this.read<DepositRow>('reading deposits', 'deposits', [
      source,
      JSON.stringify(states),
      limit,
    ]);
    return rows.map(depositOf);
  }

  async recent(source: string, fromBlock: number): Promise<WatchedDeposit[]> {
    const rows = await this.read<DepositRow>('reading recent deposits', 'recent', [
      source,
      fromBlock,
      fromBlock,
      fromBlock,
    ]);
    return rows.map(depositOf);
  }

  async counts(source: string): Promise<Readonly<Record<WatchedState, number>>> {
    return countsOf(
      await this.read<{ state: WatchedState; count: string }>('counting deposits', 'counts', [
        source,
      ]),
    );
  }

  async commitmentLeaf(commitment: string): Promise<CommitmentLeaf | null> {
    const rows = await this.read<{ idx: string; deposit: boolean }>(
      'looking a commitment up',
      'commitmentLeaf',
      [commitment],
    );
    return commitmentLeafOf(rows[0]);
  }

  close(): Promise<void> {
    this.closed ??= this.connections.end().catch(() => undefined);
    return this.closed;
  }
}
