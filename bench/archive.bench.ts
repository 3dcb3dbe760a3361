// The proof archive's cost (docs/audit.md, "Proof archive"): bytes a settlement adds to the store
// with its proof kept, on the embedded SQLite store and a throwaway PostgreSQL 15, side by side,
// and what that makes a day and a retention window at 10 and 1,000 payments/s. The settlements carry
// real spend proofs (proved here from fixture notes, then each reused under fresh nullifiers: a
// store keeps bytes, it verifies nothing) in groups as the group committer writes them; a compact
// settlement's proof is kept by copying its hand-over's row, an inline one's from the op, so both
// paths are measured. Also: the time a group takes to commit with its proofs.
//
// Run: npx tsx bench/archive.bench.ts → bench/results/archive.{json,md,svg}.
// Knobs: ARCHIVE_BENCH_SETTLEMENTS (2000), ARCHIVE_BENCH_GROUP (64).

import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadCore, type PrivStarkCore, randomDigest } from '../src/core/index.js';
import {
  DEFAULT_PROOF_RETENTION_MS,
  openStore,
  type PoolStore,
  type StoreOp,
  settlementId,
  sqlitePath,
} from '../src/ledger/index.js';
import { fixtures } from '../testkit/fixtures.js';
import { postgresAvailable, startTestPostgres } from '../testkit/postgres.js';
import { environment, writeResults } from './report.js';

const SETTLEMENTS = Number(process.env.ARCHIVE_BENCH_SETTLEMENTS ?? 2000);
const GROUP = Number(process.env.ARCHIVE_BENCH_GROUP ?? 64);
const RATES = [10, 1000] as const;
const log = (text: string) => process.stderr.write(`[bench:archive] ${text}\n`);

interface StoreResult {
  readonly store: 'sqlite' | 'postgres';
  readonly path: 'inline' | 'compact';
  readonly settlements: number;
  readonly proofBytes: number;
  /** Growth of the store per settlement, its proof kept (leaf rows, event, nullifier included). */
  readonly bytesPerSettlement: number;
  /**
   * Of which the archive's (SQLite: its rows' bytes; PostgreSQL: the relation with its TOAST):
   * what the retention keeps, per day and per window below.
   */
  readonly archiveBytesPerSettlement: number;
  readonly groupCommitMedianMs: number;
  readonly perDay: Record<string, number>;
  readonly perRetention: Record<string, number>;
}

/** Bytes of a directory's files (the SQLite file, its WAL and shared memory). */
function dirBytes(dir: string): number {
  return readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
}

/** A settlement of a fresh nullifier carrying `proof`, inline or by a hand-over's reference. */
function opsOf(core: PrivStarkCore, proof: Uint8Array, path: 'inline' | 'compact'): StoreOp[] {
  const nullifier = randomDigest();
  const [root, ctx] = [randomDigest(), randomDigest()];
  const base = {
    kind: 'settlement' as const,
    nullifier,
    settlementId: settlementId(nullifier),
    change: randomDigest(),
    recipientNote: randomDigest(),
    recipient: core.encodeAddress(randomDigest()),
    amount: '1000',
  };
  if (path === 'inline') return [{ ...base, proof: { root, ctx, bytes: proof } }];
  const reference = randomDigest();
  return [
    {
      kind: 'handover',
      reference,
      parameterSet: 3,
      root,
      nullifier,
      change: base.change,
      amount: '1000',
      ctx,
      proof,
      expiresAt: Number.MAX_SAFE_INTEGER,
      capacity: 1_000_000,
      perNullifier: 2,
    },
    { ...base, proof: { root, ctx, reference } },
  ];
}

async function measure(
  core: PrivStarkCore,
  store: PoolStore,
  kind: 'sqlite' | 'postgres',
  path: 'inline' | 'compact',
  proofs: readonly Uint8Array[],
  size: () => Promise<{ total: number; archive: number }>,
): Promise<StoreResult> {
  const before = await size();
  const commits: number[] = [];
  let proofBytes = 0;
  for (let done = 0; done < SETTLEMENTS; done += GROUP) {
    const count = Math.min(GROUP, SETTLEMENTS - done);
    const handOvers: StoreOp[] = [];
    const settlements: StoreOp[] = [];
    for (let i = 0; i < count; i += 1) {
      const proof = proofs[(done + i) % proofs.length]!;
      proofBytes += proof.length;
      const ops = opsOf(core, proof, path);
      // Compact: the hand-overs commit first, as they arrive before their settlements.
      if (ops.length === 2) handOvers.push(ops[0]!);
      settlements.push(ops.at(-1)!);
    }
    if (handOvers.length > 0) await store.apply(handOvers, Date.now());
    const started = performance.now();
    const results = await store.apply(settlements, Date.now());
    commits.push(performance.now() - started);
    if (results.some((r) => !r.ok))
      throw new Error(`refused: ${JSON.stringify(results.find((r) => !r.ok))}`);
  }
  await store.checkpoint(Date.now(), 0);
  const after = await size();
  const bytesPerSettlement = (after.total - before.total) / SETTLEMENTS;
  const archiveBytesPerSettlement = (after.archive - before.archive) / SETTLEMENTS;
  const days = DEFAULT_PROOF_RETENTION_MS / 86_400_000;
  // The archive's own bytes make its storage: the rest of the store's growth (leaves, the event,
  // the nullifier; for a compact payment its hand-over's row until the space is reused) is there
  // with or without it.
  const perDay = Object.fromEntries(
    RATES.map((r) => [`${r}/s`, archiveBytesPerSettlement * r * 86_400]),
  );
  const perRetention = Object.fromEntries(
    RATES.map((r) => [`${r}/s`, archiveBytesPerSettlement * r * 86_400 * days]),
  );
  commits.sort((a, b) => a - b);
  return {
    store: kind,
    path,
    settlements: SETTLEMENTS,
    proofBytes: proofBytes / SETTLEMENTS,
    bytesPerSettlement,
    archiveBytesPerSettlement,
    groupCommitMedianMs: commits[Math.floor(commits.length / 2)] ?? 0,
    perDay,
    perRetention,
  };
}

const core = await loadCore();
log('proving the fixture proofs');
const fx = await fixtures(core, { seed: 'archive-bench', notes: 16 });
const proofs = fx.payments.map((p) => p.proof);
log(
  `${proofs.length} real spend proofs, ${Math.round(proofs.reduce((s, p) => s + p.length, 0) / proofs.length)} B mean`,
);

const results: StoreResult[] = [];
const dir = mkdtempSync(join(tmpdir(), 'priv-stark-archive-bench-'));
const postgres = postgresAvailable() ? await startTestPostgres() : null;
try {
  for (const path of ['inline', 'compact'] as const) {
    const dataDir = join(dir, path);
    const store = await openStore(core, { dataDir });
    const sqliteSize = async () => ({
      total: dirBytes(dataDir),
      archive: await sqliteArchiveBytes(dataDir),
    });
    results.push(await measure(core, store, 'sqlite', path, proofs, sqliteSize));
    await store.close();
    log(`sqlite ${path}: ${JSON.stringify(results.at(-1))}`);
    if (postgres) {
      const databaseUrl = await postgres.newDatabase();
      const pgStore = await openStore(core, { databaseUrl });
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      const pgSize = async () => {
        const { rows } = await client.query<{ total: string; archive: string }>(
          `SELECT pg_database_size(current_database())::text AS total,
                  pg_total_relation_size('proof_archive')::text AS archive`,
        );
        return { total: Number(rows[0]!.total), archive: Number(rows[0]!.archive) };
      };
      results.push(await measure(core, pgStore, 'postgres', path, proofs, pgSize));
      await client.end();
      await pgStore.close();
      log(`postgres ${path}: ${JSON.stringify(results.at(-1))}`);
    }
  }
} finally {
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** The SQLite archive table's bytes: its proofs and digests (page overhead is in the total). */
async function sqliteArchiveBytes(dataDir: string): Promise<number> {
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(sqlitePath(dataDir), { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare(
        'SELECT COALESCE(SUM(length(proof) + length(root) + length(ctx) + 8), 0) AS bytes FROM proof_archive',
      )
      .get() as { bytes: number };
    return row.bytes;
  } finally {
    db.close();
  }
}

const gb = (bytes: number) => (bytes / 1e9).toFixed(1);
const tb = (bytes: number) => (bytes / 1e12).toFixed(2);
const load = loadavg().map((l) => l.toFixed(2));
const markdown = [
  '## The proof archive: bytes per settlement and storage per day',
  '',
  `${SETTLEMENTS} settlements per row, groups of ${GROUP}, real spend proofs; load average ${load.join(' / ')}.`,
  'The archive per day and per 30-day retention is its own bytes (archive B); the store grows by the',
  'rest with or without it (a compact payment: its hand-over row too, until that space is reused —',
  'PostgreSQL reuses it after a vacuum).',
  '',
  '| store | path | proof B | store B / settlement | archive B / settlement | group commit median ms | archive a day at 10/s | a day at 1,000/s | 30 days at 10/s | 30 days at 1,000/s |',
  '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...results.map(
    (r) =>
      `| ${r.store} | ${r.path} | ${Math.round(r.proofBytes)} | ${Math.round(r.bytesPerSettlement)} | ${Math.round(r.archiveBytesPerSettlement)} | ${r.groupCommitMedianMs.toFixed(1)} | ${gb(r.perDay['10/s']!)} GB | ${tb(r.perDay['1000/s']!)} TB | ${tb(r.perRetention['10/s']!)} TB | ${tb(r.perRetention['1000/s']!)} TB |`,
  ),
].join('\n');
await writeResults(
  'archive',
  {
    environment: { ...environment(), loadAverage: load },
    settlements: SETTLEMENTS,
    group: GROUP,
    results,
  },
  markdown,
);
log('wrote bench/results/archive.{json,md,svg}');
