/**
 * @module The deposit watcher's state in the pool's SQLite file: a connection of its own (the
 * store's writer thread is the store's), `synchronous=FULL` like the store's, each write one
 * `BEGIN IMMEDIATE` transaction — SQLite's write lock serialises it with every other process on the
 * file. The writes are a few per poll, so they run on the calling thread.
 */

import Database from 'better-sqlite3';

import { PoolUnavailableError, unavailable } from './errors.js';
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
import { WATCH_SQL, type WatchStatement } from './deposit-watch-sql.js';

type Statements = Record<WatchStatement | 'synchronous', Database.Statement>;

/**
 * Opens the watcher's state in the SQLite file at `path`, which the pool store has migrated.
 * @throws PoolUnavailableError when the file cannot be opened or is not migrated
 */
export function openSqliteDepositWatch(path: string, busyTimeoutMs = 5000): DepositWatchStore {
  let db: Database.Database;
  try {
    db = new Database(path, { fileMustExist: true, timeout: busyTimeoutMs });
  } catch (error) {
    throw unavailable(error, 'opening the deposit watcher state');
  }
  try {
    const sql = { synchronous: db.prepare('PRAGMA synchronous = FULL') } as Statements;
    for (const [name, text] of Object.entries(WATCH_SQL) as [WatchStatement, string][])
      sql[name] = db.prepare(text.replace('{states}', 'SELECT value FROM json_each(?)'));
    sql.synchronous.run();
    return new SqliteDepositWatch(db, sql);
  } catch (error) {
    db.close();
    throw unavailable(error, 'opening the deposit watcher state');
  }
}

class SqliteDepositWatch implements DepositWatchStore {
  private closed = false;

  constructor(
    private readonly db: Database.Database,
    private readonly sql: Statements,
  ) {}

  /** Runs `body` in one `BEGIN IMMEDIATE` transaction; a driver's error becomes unavailability. */
  private write<T>(what: string, body: () => T): Promise<T> {
    return this.guard(what, () => this.db.transaction(body).immediate());
  }

  private guard<T>(what: string, body: () => T): Promise<T> {
    if (this.closed)
      return Promise.reject(new PoolUnavailableError('the deposit watcher state is closed'));
    try {
      return Promise.resolve(body());
    } catch (error) {
      return Promise.reject(unavailable(error, what));
    }
  }

  bindings(): Promise<WatchBinding[]> {
    return this.guard('reading the chain binding', () =>
      (this.sql.bindings.all() as BindingRow[]).map(bindingOf),
    );
  }

  bind(binding: WatchBinding, now: number): Promise<WatchBinding> {
    return this.write('recording the chain binding', () => {
      const first = (this.sql.bindings.all() as BindingRow[])[0];
      if (first) return bindingOf(first);
      const b = binding;
      this.sql.insertBinding.run(
        b.source,
        b.chainId,
        b.escrow,
        b.token,
        b.network,
        b.deployBlock,
        b.deployBlock - 1,
        now,
      );
      return binding;
    });
  }

  cursor(source: string): Promise<WatchCursor> {
    return this.guard('reading the watcher cursor', () => {
      const row = this.sql.cursor.get(source) as CursorRow | undefined;
      if (!row) throw new Error(`no binding for ${source}`);
      return cursorOf(row);
    });
  }

  async record(
    source: string,
    events: readonly WatchEvent[],
    to: WatchCursor,
    now: number,
  ): Promise<void> {
    await this.write('recording escrow events', () => {
      for (const e of events) {
        if (e.kind === 'deposited')
          this.sql.insertDeposit.run(
            source,
            e.index,
            e.depositor,
            e.amount,
            e.pre,
            e.block,
            e.blockHash,
            now,
          );
        else if (e.kind === 'reclaimed')
          this.sql.reclaim.run(e.block, e.blockHash, now, source, e.index);
        else this.sql.settle.run(e.kind, e.block, e.blockHash, now, source, e.index);
      }
      this.sql.moveCursor.run(to.block, to.hash, now, source);
    });
  }

  async rewind(source: string, to: WatchCursor, now: number): Promise<void> {
    await this.write('rewinding the watcher', () => {
      this.sql.dropAbove.run(source, to.block);
      this.sql.unreclaimAbove.run(to.block, now, source, to.block);
      this.sql.unsettleAbove.run(now, source, to.block);
      this.sql.moveCursor.run(to.block, to.hash, now, source);
    });
  }

  async decide(
    source: string,
    decisions: readonly WatchDecision[],
    tx: string,
    block: number,
    now: number,
  ): Promise<void> {
    await this.write('recording acceptance decisions', () => {
      for (const d of decisions)
        this.sql.decide.run(d.decision, d.reason, tx, block, now, source, d.index);
    });
  }

  async clearSent(source: string, tx: string, now: number): Promise<void> {
    await this.write('clearing a sent acceptance', () => this.sql.clearSent.run(now, source, tx));
  }

  async markShielded(source: string, index: number, leafIndex: number, now: number) {
    await this.write('marking a deposit shielded', () =>
      this.sql.markShielded.run(leafIndex, now, source, index),
    );
  }

  async markUnshieldable(source: string, index: number, reason: string, now: number) {
    await this.write('marking a deposit unshieldable', () =>
      this.sql.markUnshieldable.run(reason, now, source, index),
    );
  }

  deposits(
    source: string,
    states: readonly WatchedState[],
    limit: number,
  ): Promise<WatchedDeposit[]> {
    return this.guard('reading deposits', () =>
      (this.sql.deposits.all(source, JSON.stringify(states), limit) as DepositRow[]).map(depositOf),
    );
  }

  recent(source: string, fromBlock: number): Promise<WatchedDeposit[]> {
    return this.guard('reading recent deposits', () =>
      (this.sql.recent.all(source, fromBlock, fromBlock, fromBlock) as DepositRow[]).map(depositOf),
    );
  }

  counts(source: string): Promise<Readonly<Record<WatchedState, number>>> {
    return this.guard('counting deposits', () =>
      countsOf(this.sql.counts.all(source) as { state: WatchedState; count: number }[]),
    );
  }

  commitmentLeaf(commitment: string): Promise<CommitmentLeaf | null> {
    return this.guard('looking a commitment up', () =>
      commitmentLeafOf(
        this.sql.commitmentLeaf.get(commitment) as { idx: number; deposit: number } | undefined,
      ),
    );
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      try {
        this.db.close();
      } catch {
        // closing after a fault: nothing left to release
      }
    }
    return Promise.resolve();
  }
}
