/**
 * @module The embedded pool store: one SQLite file (better-sqlite3) in WAL mode with
 * `synchronous=FULL`, so a commit is on disk when it returns. Several processes may share the file:
 * writers take SQLite's write lock with `BEGIN IMMEDIATE` (waiting up to the busy timeout), which
 * serialises appends; readers see consistent snapshots without blocking writers.
 *
 * better-sqlite3 is synchronous: a group's transaction — fsync included — runs on the calling
 * thread. The pool's group committer keeps that to one commit per group of ops. Its statements
 * and rows are `sqlite-statements.ts`.
 */

import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

import Database from 'better-sqlite3';

import type { Backend, DigestHex, Frontier } from '../core/index.js';
import { PoolUnavailableError, unavailable } from './errors.js';
import { MIGRATIONS, MIGRATIONS_TABLE, SCHEMA_VERSION, SchemaTooNewError } from './migrations.js';
import { planGroup } from './group-plan.js';
import { publishedStateOf, unpublishedSums } from './public-log.js';
import type { CheckpointCoverage, LogDigestRecord } from './log-digests.js';
import { SqliteLogDigests } from './sqlite-log-digests.js';
import { proofSha256, SqliteProofArchive } from './sqlite-proof-archive.js';
import {
  type CheckpointRow,
  checkpointOf,
  handedOverOf,
  headOf,
  type HeadRow,
  type ProofRow,
  prepareStatements,
  publishingCheckpointOf,
  type SqliteStatements,
} from './sqlite-statements.js';
import { CommitTimingSums, type CommitTimingTotals } from './commit-stats.js';
import type { SqliteWriteChannel, TimedApply } from './sqlite-writer-messages.js';
import { WriterThread } from './sqlite-writer-thread.js';
import type {
  ArchivedProof,
  ArchivedProofHash,
  ArchivePrune,
  ArchiveState,
  Checkpoint,
  HandedOverProof,
  PoolEvent,
  PoolStore,
  SpentNullifier,
  StoreOp,
  StoreOpResult,
  StoreState,
  TreeHasher,
  WithdrawalRecord,
} from './store.js';
import {
  checkpointStamp,
  emptyHead,
  type EventRow,
  eventFromRow,
  type Head,
  type KnownWithdrawal,
  knownWithdrawalOf,
  type WithdrawalListRow,
  type WithdrawalLookupRow,
  withdrawalRecordOf,
} from './store-rows.js';

/** Options of {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /** The core's tree arithmetic. */
  readonly tree: TreeHasher;
  /** Directory of the database file `pool.sqlite` (default `./data`). Ignored when `path` is set. */
  readonly dataDir?: string;
  /** The database file itself. */
  readonly path?: string;
  /** How long a writer waits for another process's lock before failing, ms (default 5000). */
  readonly busyTimeoutMs?: number;
  /**
   * Where writes run: `thread` (default) — a worker thread of their own, so a commit's fsync never
   * stops this thread's event loop; `inline` — on the calling thread; or a channel to another
   * process's writer (a worker of `priv-stark start --workers N`), so that one process writes.
   */
  readonly writer?: 'thread' | 'inline' | SqliteWriteChannel;
  /** Apply missing migrations (default true; the writer thread opens an already migrated file). */
  readonly migrate?: boolean;
}

/** The page size of a pool created by this release, bytes (see {@link openSqliteStore}). */
export const SQLITE_PAGE_BYTES = 16_384;

/** The database file a data directory holds. */
export function sqlitePath(dataDir: string): string {
  return join(resolve(dataDir), 'pool.sqlite');
}

/**
 * Opens (creating and migrating as needed) the SQLite pool store.
 * @throws PoolUnavailableError when the file cannot be opened or migrated
 * @example
 * const store = await openSqliteStore({ tree: core, dataDir: './data' });
 */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<PoolStore> {
  const path = options.path ?? sqlitePath(options.dataDir ?? './data');
  let db: Database.Database;
  try {
    mkdirSync(dirname(path), { recursive: true });
    db = new Database(path, { timeout: options.busyTimeoutMs ?? 5000 });
  } catch (error) {
    throw unavailable(error, 'open');
  }
  // Every statement lives as long as the connection: Node 24 aborts the process when the garbage
  // collector frees a better-sqlite3 statement where no context is entered ("Assertion failed:
  // (env) != nullptr" in RemoveEnvironmentCleanupHook, from ~Statement), so none is left to it
  // while the store is open — `db.pragma` and one-off `prepare` calls would leave such garbage.
  const retained: Database.Statement[] = [];
  const once = (sql: string) => {
    const statement = db.prepare(sql);
    retained.push(statement);
    return statement;
  };
  try {
    // A new pool's pages are 16 KiB (SQLite's default is 4 KiB): every settled proof is about
    // 82 KB, and fewer, larger overflow pages cut the writer thread's CPU per compact payment by
    // a fifth (docs/facilitator.md, "Less CPU per payment"). Effective only while the file is
    // empty; an existing pool keeps its page size.
    once(`PRAGMA page_size = ${SQLITE_PAGE_BYTES}`).run();
    const mode = once('PRAGMA journal_mode = WAL').pluck().get();
    if (String(mode).toLowerCase() !== 'wal')
      throw new Error(`journal_mode is ${String(mode)}, expected wal`);
    once('PRAGMA synchronous = FULL').run();
    if (options.migrate !== false) migrate(db, options.tree, once);
  } catch (error) {
    db.close();
    if (error instanceof SchemaTooNewError) throw error;
    throw unavailable(error, 'migration');
  }
  const writer =
    options.writer === 'inline'
      ? null
      : typeof options.writer === 'object'
        ? options.writer
        : new WriterThread({
            path,
            busyTimeoutMs: options.busyTimeoutMs ?? 5000,
            backend: backendOf(options.tree),
          });
  return new SqliteStore(db, options.tree, writer, retained);
}

function backendOf(tree: TreeHasher): Backend | undefined {
  const backend = (tree as { backend?: unknown }).backend;
  return backend === 'native' || backend === 'wasm' ? backend : undefined;
}

function migrate(
  db: Database.Database,
  tree: TreeHasher,
  once: (sql: string) => Database.Statement,
): void {
  const run = db.transaction(() => {
    db.exec(MIGRATIONS_TABLE.sqlite);
    const row = once('SELECT MAX(version) AS v FROM schema_migrations').get() as {
      v: number | null;
    };
    const current = row.v ?? 0;
    if (current > SCHEMA_VERSION) throw new SchemaTooNewError(current);
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      db.exec(migration.sqlite);
      once('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        Date.now(),
      );
    }
    const head = emptyHead(tree);
    once(
      `INSERT OR IGNORE INTO pool_head (id, size, root, frontier, event_count, checkpoint_count, deposit_total)
       VALUES (1, ?, ?, ?, ?, ?, ?)`,
    ).run(
      head.size,
      head.root,
      Buffer.from(head.frontier),
      head.eventCount,
      head.checkpointCount,
      head.depositTotal,
    );
  });
  run.immediate();
}

export class SqliteStore implements PoolStore {
  readonly kind = 'sqlite' as const;
  readonly schemaVersion = SCHEMA_VERSION;
  private closed = false;
  private readonly sql: SqliteStatements;
  private readonly applyTx;
  /** When the current apply got the lock and finished its work (`performance.now()`). */
  private readonly applyMarks = { locked: 0, worked: 0 };
  /** This connection's commits by phase, or the writer thread's as it reports them. */
  private readonly timing = new CommitTimingSums();
  private readonly checkpointTx;
  private readonly pruneTx;
  private readonly archive: SqliteProofArchive;
  private readonly archivePruneTx;
  private readonly digests: SqliteLogDigests;
  private readonly stateTx;
  private readonly publishedTx;
  private readonly emptyRoot: DigestHex;

  constructor(
    private readonly db: Database.Database,
    private readonly tree: TreeHasher,
    private readonly writer: SqliteWriteChannel | null,
    /**
     * The statements of the open and the migration, kept for the connection's life (see
     * {@link openSqliteStore}): only holding them matters, nothing reads them.
     */
    readonly keptAlive: readonly Database.Statement[],
  ) {
    this.sql = prepareStatements(db);
    this.archive = new SqliteProofArchive(db);
    this.digests = new SqliteLogDigests(db);
    this.archivePruneTx = db.transaction((before: number, pageSize: number) =>
      this.archive.prune(before, pageSize),
    );
    this.emptyRoot = tree.emptyFrontier().root as DigestHex;
    this.applyTx = db.transaction((ops: readonly StoreOp[], now: number) => {
      this.applyMarks.locked = performance.now();
      const results = this.applyLocked(ops, now);
      this.applyMarks.worked = performance.now();
      return results;
    });
    this.checkpointTx = db.transaction((now: number, minGapMs: number, epochMs: number) =>
      this.checkpointLocked(now, minGapMs, epochMs),
    );
    this.pruneTx = db.transaction((now: number) => {
      const dropped = this.sql.pruneProofs.run(now).changes;
      if (dropped > 0) {
        const head = this.readHead();
        this.writeHead({ ...head, proofRows: head.proofRows - dropped });
      }
      return dropped;
    });
    this.publishedTx = db.transaction((): StoreState => {
      const head = this.readHead();
      const latest = publishingCheckpointOf(
        this.sql.latestCheckpoint.get() as CheckpointRow | undefined,
      );
      const rows = this.sql.unpublishedAmounts.all(latest?.events ?? 0) as {
        kind: string;
        amount: string;
      }[];
      return publishedStateOf(head, latest, unpublishedSums(rows), this.emptyRoot);
    });
    this.stateTx = db.transaction((): StoreState => {
      const head = this.readHead();
      return {
        size: head.size,
        root: head.root,
        events: head.eventCount,
        depositTotal: head.depositTotal,
        withdrawnTotal: head.withdrawnTotal,
        paidOutTotal: head.paidOutTotal,
        refundedTotal: head.refundedTotal,
        checkpoint: checkpointOf(this.sql.latestCheckpoint.get() as CheckpointRow | undefined),
      };
    });
  }

  private readHead(): Head {
    const row = this.sql.head.get() as HeadRow | undefined;
    if (!row) throw new Error('pool_head row missing');
    return headOf(row);
  }

  private writeHead(head: Head): void {
    this.sql.writeHead.run(
      head.size,
      head.root,
      Buffer.from(head.frontier),
      head.eventCount,
      head.checkpointCount,
      head.depositTotal,
      head.proofRows,
      head.withdrawnTotal,
      head.paidOutTotal,
      head.refundedTotal,
    );
  }

  private applyLocked(ops: readonly StoreOp[], now: number): StoreOpResult[] {
    const head = this.readHead();
    const spent = new Set<string>();
    const present = new Set<string>();
    const existing = new Map<string, number>();
    const perNullifier = new Map<string, number>();
    const withdrawals = new Map<string, KnownWithdrawal>();
    for (const op of ops) {
      if (op.kind === 'payout') {
        const row = this.sql.withdrawal.get(op.withdrawalId) as WithdrawalLookupRow | undefined;
        if (row) withdrawals.set(op.withdrawalId, knownWithdrawalOf(row));
        continue;
      }
      if (op.kind === 'deposit') {
        if (this.sql.present.get(op.commitment) !== undefined) present.add(op.commitment);
        continue;
      }
      if (op.kind === 'transition') {
        for (const nf of op.nullifiers) if (this.sql.spent.get(nf) !== undefined) spent.add(nf);
        continue;
      }
      if (this.sql.spent.get(op.nullifier) !== undefined) spent.add(op.nullifier);
      if (!perNullifier.has(op.nullifier))
        perNullifier.set(op.nullifier, Number(this.sql.proofsOf.get(op.nullifier)));
      // The reference a hand-over keeps, or whose stored bytes a settlement archives.
      const reference =
        op.kind === 'handover' ? op.reference : 'reference' in op.proof ? op.proof.reference : null;
      if (reference !== null) {
        const expiresAt = this.sql.proofExpiry.get(reference) as number | undefined;
        if (expiresAt !== undefined) existing.set(reference, expiresAt);
      }
    }
    const plan = planGroup(
      this.tree,
      head,
      ops,
      spent,
      present,
      { existing, perNullifier },
      now,
      withdrawals,
    );
    if (plan.head === null) return plan.results;
    for (const p of plan.payouts)
      this.sql.upsertPayout.run(p.withdrawal_id, p.status, p.updated_at);
    for (const leaf of plan.leaves) this.sql.insertLeaf.run(leaf.idx, leaf.commitment);
    for (const n of plan.nullifiers)
      this.sql.insertNullifier.run(n.nullifier, n.settlement_id, n.event_id);
    for (const event of plan.events) this.sql.insertEvent.run(event);
    for (const p of plan.proofs) {
      this.sql.insertProof.run({
        reference: p.reference,
        nullifier: p.nullifier,
        parameterSet: p.parameterSet,
        root: p.root,
        change: p.change,
        amount: p.amount,
        ctx: p.ctx,
        proof: Buffer.from(p.proof.buffer, p.proof.byteOffset, p.proof.length),
        proofSha256: proofSha256(p.proof),
        expiresAt: p.expiresAt,
      });
    }
    this.archive.write(plan.archive);
    for (const nullifier of plan.dropProofsOf) this.sql.dropProofsOf.run(nullifier);
    this.writeHead(plan.head);
    return plan.results;
  }

  private checkpointLocked(now: number, minGapMs: number, epochMs: number): Checkpoint | null {
    const head = this.readHead();
    const latest = publishingCheckpointOf(
      this.sql.latestCheckpoint.get() as CheckpointRow | undefined,
    );
    const time = checkpointStamp(head, latest, now, minGapMs, epochMs);
    if (time === null) return null;
    const checkpoint: Checkpoint = {
      seq: head.checkpointCount + 1,
      root: head.root,
      size: head.size,
      time,
    };
    this.sql.insertCheckpoint.run(
      checkpoint.seq,
      checkpoint.root,
      checkpoint.size,
      checkpoint.time,
      head.eventCount,
    );
    // Its events become public with it: placed in nullifier order, stamped with its time.
    const base = Number(this.sql.placedEvents.get());
    this.sql.placeEvents.run(base, base);
    this.sql.stampEvents.run(checkpoint.seq, latest?.events ?? 0);
    this.writeHead({ ...head, checkpointCount: checkpoint.seq });
    return checkpoint;
  }

  private run<T>(what: string, call: () => T): Promise<T> {
    try {
      return Promise.resolve(call());
    } catch (error) {
      return Promise.reject(unavailable(error, what));
    }
  }

  async apply(ops: readonly StoreOp[], now: number): Promise<StoreOpResult[]> {
    if (ops.length === 0) return [];
    if (this.closed) throw new PoolUnavailableError('the pool store is closed');
    // Another process's writer (`--workers`) answers the results alone; this store's own thread
    // answers them with the commit's timing.
    if (this.writer && !(this.writer instanceof WriterThread))
      return this.writer.call('apply', [ops, now]);
    const { results, timing } = this.writer
      ? await this.writer.call<TimedApply>('applyTimed', [ops, now])
      : await this.run('apply', () => this.applyTimed(ops, now));
    this.timing.add(timing);
    return results;
  }

  /** `apply` on this connection, and where its commit spent its time (`commit-stats.ts`). */
  applyTimed(ops: readonly StoreOp[], now: number): TimedApply {
    const begun = performance.now();
    let results: StoreOpResult[];
    try {
      results = this.applyTx.immediate(ops, now);
    } catch (error) {
      throw unavailable(error, 'apply');
    }
    const committed = performance.now();
    const { locked, worked } = this.applyMarks;
    return {
      results,
      timing: { lockMs: locked - begun, workMs: worked - locked, syncMs: committed - worked },
    };
  }

  /**
   * The commits' time by phase since open (`PoolStore.commitTiming`); `null` when another
   * process's writer commits for this store (it times them there).
   */
  commitTiming(): CommitTimingTotals | null {
    if (this.writer && !(this.writer instanceof WriterThread)) return null;
    return this.timing.snapshot();
  }

  checkpoint(now: number, minGapMs: number, epochMs = 1): Promise<Checkpoint | null> {
    if (this.closed) return Promise.reject(new PoolUnavailableError('the pool store is closed'));
    if (this.writer) return this.writer.call('checkpoint', [now, minGapMs, epochMs]);
    return this.run('checkpoint', () => this.checkpointTx.immediate(now, minGapMs, epochMs));
  }

  pruneProofs(now: number): Promise<number> {
    if (this.closed) return Promise.reject(new PoolUnavailableError('the pool store is closed'));
    if (this.writer) return this.writer.call('pruneProofs', [now]);
    return this.run('prune', () => this.pruneTx.immediate(now));
  }

  pruneArchive(before: number, pageSize: number): Promise<ArchivePrune> {
    if (this.closed) return Promise.reject(new PoolUnavailableError('the pool store is closed'));
    if (this.writer) return this.writer.call('pruneArchive', [before, pageSize]);
    return this.run('archive prune', () => this.archivePruneTx.immediate(before, pageSize));
  }

  archivedProofs(after: number, limit: number): Promise<ArchivedProof[]> {
    return this.run('archive', () => this.archive.read(after, limit));
  }

  archivedProofHashes(after: number, limit: number): Promise<ArchivedProofHash[]> {
    return this.run('archive hashes', () => this.archive.hashes(after, limit));
  }

  archiveState(): Promise<ArchiveState> {
    return this.run('archive state', () => this.archive.gaps());
  }

  checkpointCoverage(after: number, limit: number): Promise<CheckpointCoverage[]> {
    return this.run('checkpoint coverage', () => this.digests.coverage(after, limit));
  }

  logDigests(after: number, limit: number): Promise<LogDigestRecord[]> {
    return this.run('log digests', () => this.digests.digests(after, limit));
  }

  latestLogDigest(): Promise<LogDigestRecord | null> {
    return this.run('log digest', () => this.digests.latest());
  }

  recordLogDigests(records: readonly LogDigestRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    if (this.closed) return Promise.reject(new PoolUnavailableError('the pool store is closed'));
    if (this.writer) return this.writer.call('recordLogDigests', [records]);
    return this.run('log digest record', () => this.digests.record(records));
  }

  handedOver(reference: string): Promise<HandedOverProof | null> {
    return this.run('proof lookup', () =>
      handedOverOf(this.sql.handedOver.get(reference) as ProofRow | undefined),
    );
  }

  proofCount(): Promise<number> {
    return this.run('proof count', () => Number(this.sql.proofCount.get()));
  }

  state(): Promise<StoreState> {
    return this.run('state', () => this.stateTx.deferred());
  }

  withdrawals(after: number, limit: number): Promise<WithdrawalRecord[]> {
    return this.run('withdrawals', () =>
      (this.sql.withdrawals.all(after, limit) as WithdrawalListRow[]).map(withdrawalRecordOf),
    );
  }

  frontier(): Promise<Frontier> {
    return this.run('frontier', () => {
      const head = this.readHead();
      return { size: head.size, root: head.root, state: head.frontier };
    });
  }

  checkpointByRoot(root: string): Promise<Checkpoint | null> {
    return this.run('checkpoint lookup', () =>
      checkpointOf(this.sql.checkpointByRoot.get(root) as CheckpointRow | undefined),
    );
  }

  checkpoints(after: number, limit: number): Promise<Checkpoint[]> {
    return this.run('checkpoints', () =>
      (this.sql.checkpoints.all(after, limit) as CheckpointRow[]).map(
        (row) => checkpointOf(row) as Checkpoint,
      ),
    );
  }

  leaves(from: number, limit: number): Promise<DigestHex[]> {
    return this.run('leaves', () => this.sql.leaves.all(from, limit) as DigestHex[]);
  }

  events(after: number, limit: number): Promise<PoolEvent[]> {
    return this.run('events', () =>
      (this.sql.events.all(after, limit) as EventRow[]).map(eventFromRow),
    );
  }

  publishedState(): Promise<StoreState> {
    return this.run('published state', () => this.publishedTx.deferred());
  }

  publishedEvents(after: number, limit: number): Promise<PoolEvent[]> {
    return this.run('published events', () =>
      (this.sql.publishedEvents.all(after, limit) as EventRow[]).map(eventFromRow),
    );
  }

  nullifier(nullifier: string): Promise<SpentNullifier | null> {
    return this.run('nullifier lookup', () => {
      const row = this.sql.spent.get(nullifier) as
        | { settlement_id: string; event_id: number }
        | undefined;
      return row ? { settlementId: row.settlement_id, eventId: row.event_id } : null;
    });
  }

  ping(): Promise<void> {
    return this.run('ping', () => {
      this.sql.ping.get();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writer?.close();
    try {
      this.db.close();
    } catch {
      // closing after a fault: nothing left to release
    }
  }
}
