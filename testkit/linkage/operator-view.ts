/**
 * @module The operator's view of a run, as an operator would assemble it: the recording proxies'
 * requests and the pool's database rows read by SQL (events with their arrival times, checkpoints),
 * joined by what both name — nullifiers, anchors, proof references. From them the items the
 * linkage test scores: deposits, merchant payments and exits, plus the pool's own transfers
 * (splits) and the wallets' reads (syncs). On a chain pool, also the deposits the escrow took
 * (`chain_deposits`: depositor account, amount, ticket precommitment, leaf once shielded), which
 * name a deposit's EVM account and, through the relayed request that carried its precommitment,
 * the address it was sent from. Nothing here knows which wallet did what.
 */

import Database from 'better-sqlite3';

import type { Upload } from './link-observer.js';
import type { RecordedRequest } from './recording-proxy.js';

/** A deposit, a payment at a merchant, an exit, or a transfer through the pool node. */
export interface Item {
  /** `d:`, `p:`, `e:` or `t:` and the commitment or the nullifier. */
  readonly id: string;
  readonly kind: 'deposit' | 'payment' | 'exit' | 'transfer';
  /** Arrival of its write at the operator (the request's time, else the event's), unix ms. */
  readonly time: number;
  /** Public amount (decimal atomic units). */
  readonly amount: string;
  /** Deposit: its commitment; others: the nullifiers spent. */
  readonly keys: readonly string[];
  /** The checkpoint root the proof is anchored to (null for a deposit). */
  readonly anchor: string | null;
  /** Source addresses of the requests that carried it to the operator (hand-over, write). */
  readonly sources: readonly string[];
  /**
   * Payments: the merchant's address (the `/settle` caller); transfers and exits: their recipient;
   * deposits on chain: the depositing account.
   */
  readonly counterparty: string | null;
  /** Payments: whether the proof came inline in the payment (no hand-over). */
  readonly inline: boolean;
}

/** A read of the public log (a sync's request). */
export interface Read {
  readonly time: number;
  readonly source: string;
  readonly path: string;
  /** Where the reply said the next read starts (`next`), if it said. */
  readonly next: string | null;
}

/** A checkpoint as the database holds it. */
export interface CheckpointRow {
  readonly seq: number;
  readonly root: string;
  readonly size: number;
  readonly time: number;
}

/** A deposit the escrow took, as the pool's `chain_deposits` holds it (chain pools only). */
export interface ChainDepositRow {
  readonly index: string;
  readonly depositor: string;
  readonly amount: string;
  readonly pre: string;
  readonly block: number;
  readonly state: string;
  /** Its leaf once shielded. */
  readonly leafIndex: number | null;
}

/** What the operator has after a run. */
export interface OperatorView {
  readonly requests: readonly RecordedRequest[];
  readonly events: readonly Record<string, unknown>[];
  readonly chainDeposits: readonly ChainDepositRow[];
  readonly checkpoints: readonly CheckpointRow[];
  readonly items: readonly Item[];
  readonly reads: readonly Read[];
  /** Addresses that called the facilitator with an API key: the merchants, as the operator knows them. */
  readonly merchants: ReadonlySet<string>;
  /**
   * Not the operator's: the connections a network observer on the wallets' links saw
   * (`link-observer.ts`), for the one heuristic of such an observer (upload timing); empty when
   * none was recorded.
   */
  readonly linkUploads: readonly Upload[];
}

const READ_PATH = /^\/(leaves|events|checkpoints|state)(\/|\?|$)/;

/** The pool database's rows the operator reads. */
export interface PoolRows {
  readonly events: readonly Record<string, unknown>[];
  readonly checkpoints: readonly CheckpointRow[];
  readonly chainDeposits: readonly ChainDepositRow[];
}

/**
 * Rows of the pool database at `file` (read-only) and the proxies' `requests`, joined; beside them
 * what a network observer on the wallets' links saw (`uploads`).
 */
export function readOperatorView(
  file: string,
  requests: readonly RecordedRequest[],
  uploads: readonly Upload[] = [],
): OperatorView {
  return assembleOperatorView(readPoolRows(file), requests, uploads);
}

/** The rows of the pool database at `file`, read-only. */
function readPoolRows(file: string): PoolRows {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  let events: Record<string, unknown>[];
  let checkpoints: CheckpointRow[];
  let chainDeposits: ChainDepositRow[] = [];
  try {
    events = db.prepare('SELECT * FROM events ORDER BY id').all() as Record<string, unknown>[];
    checkpoints = (
      db.prepare('SELECT seq, root, size, created_at FROM checkpoints ORDER BY seq').all() as {
        seq: number;
        root: string;
        size: number;
        created_at: number;
      }[]
    ).map((c) => ({ seq: c.seq, root: c.root, size: c.size, time: c.created_at }));
    const chainPool = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chain_deposits'")
      .get();
    if (chainPool !== undefined)
      chainDeposits = (
        db
          .prepare(
            'SELECT idx, depositor, amount, pre, block, state, leaf_index FROM chain_deposits ORDER BY idx',
          )
          .all() as Record<string, unknown>[]
      ).map((d) => ({
        index: String(d.idx),
        depositor: String(d.depositor),
        amount: String(d.amount),
        pre: String(d.pre),
        block: Number(d.block),
        state: String(d.state),
        leafIndex: d.leaf_index === null ? null : Number(d.leaf_index),
      }));
  } finally {
    db.close();
  }
  return { events, checkpoints, chainDeposits };
}

/**
 * The operator's view from the pool's rows and the proxies' requests (as read at the end of a run,
 * or back from the published JSON Lines: `jsonl.ts`).
 */
export function assembleOperatorView(
  rows: PoolRows,
  requests: readonly RecordedRequest[],
  uploads: readonly Upload[] = [],
): OperatorView {
  const { events, checkpoints, chainDeposits } = rows;
  const merchants = new Set(
    requests.filter((r) => r.service === 'facilitator').map((r) => r.source),
  );
  const byNullifier = new Map<string, RecordedRequest[]>();
  for (const r of requests)
    if (r.method === 'POST')
      for (const n of r.sent.nullifiers) byNullifier.set(n, [...(byNullifier.get(n) ?? []), r]);
  const byPre = new Map<string, RecordedRequest[]>();
  for (const r of requests)
    if (r.service === 'pool' && r.method === 'POST')
      for (const c of r.sent.commitments) byPre.set(c, [...(byPre.get(c) ?? []), r]);
  const escrowed = new Map(
    chainDeposits.filter((d) => d.leafIndex !== null).map((d) => [d.leafIndex!, d]),
  );
  const items: Item[] = [];
  for (const e of events) {
    const item = itemOf(e, byNullifier);
    if (item === null) continue;
    const onChain = item.kind === 'deposit' ? escrowed.get(Number(e.leaf_index)) : undefined;
    items.push(onChain === undefined ? item : escrowedDeposit(item, onChain, byPre));
  }
  const reads = requests
    .filter((r) => r.service === 'pool' && r.method === 'GET' && READ_PATH.test(r.path))
    .map((r) => ({
      time: r.time,
      source: r.source,
      path: r.path,
      next: r.answered.cursors[0] ?? null,
    }));
  return {
    requests,
    events,
    chainDeposits,
    checkpoints,
    items,
    reads,
    merchants,
    linkUploads: uploads,
  };
}

/**
 * A deposit the escrow took: its depositing account, and the address and time of the relayed
 * request that carried its precommitment (none for a deposit sent to the escrow directly).
 */
function escrowedDeposit(
  item: Item,
  onChain: ChainDepositRow,
  byPre: Map<string, RecordedRequest[]>,
): Item {
  const relayed = (byPre.get(onChain.pre) ?? []).filter((r) => r.path.startsWith('/relay/'));
  return {
    ...item,
    time: Math.min(item.time, ...relayed.map((r) => r.time)),
    sources: [...new Set(relayed.map((r) => r.source))],
    counterparty: onChain.depositor,
  };
}

/**
 * The pool writes that carried the item, of those naming its nullifiers: for a payment, the
 * hand-over whose reference its `/settle` named (none for an inline one); otherwise the writes the
 * node accepted. An earlier write the node refused, or a hand-over never settled, showed the
 * nullifier too, but did not carry this item (the re-shown nullifier reads those).
 */
function ownWrites(
  poolWrites: readonly RecordedRequest[],
  settle: RecordedRequest | undefined,
): RecordedRequest[] {
  if (settle !== undefined) {
    const references = settle.sent.references;
    return poolWrites.filter((r) => r.answered.references.some((x) => references.includes(x)));
  }
  return poolWrites.filter((r) => r.status < 400);
}

const text = (v: unknown) => (v === null || v === undefined ? null : String(v));

function itemOf(
  e: Record<string, unknown>,
  byNullifier: Map<string, RecordedRequest[]>,
): Item | null {
  const kind = String(e.kind);
  const time = Number(e.created_at);
  const amount = String(e.amount);
  if (kind === 'deposit') {
    const commitment = String(e.commitment);
    return {
      id: `d:${commitment}`,
      kind: 'deposit',
      time,
      amount,
      keys: [commitment],
      anchor: null,
      sources: [],
      counterparty: null,
      inline: false,
    };
  }
  const nullifiers = [text(e.nullifier), text(e.nullifier_2)].filter(
    (n): n is string => n !== null,
  );
  const first = nullifiers[0];
  if (first === undefined) return null;
  const named = nullifiers.flatMap((n) => byNullifier.get(n) ?? []);
  const settle = named.find(
    (r) => r.service === 'facilitator' && r.path.startsWith('/settle') && r.status === 200,
  );
  const poolWrites = ownWrites(
    named.filter((r) => r.service === 'pool'),
    settle,
  );
  const carried = named.filter((r) => r.service === 'facilitator' || poolWrites.includes(r));
  const anchor =
    [settle, ...poolWrites].find((r) => r !== undefined && r.sent.roots.length > 0)?.sent
      .roots[0] ?? null;
  const writeTime = Math.min(...carried.map((r) => r.time), time);
  if (kind === 'settlement' && settle !== undefined)
    return {
      id: `p:${first}`,
      kind: 'payment',
      time: writeTime,
      amount,
      keys: nullifiers,
      anchor,
      sources: [...new Set(poolWrites.map((r) => r.source))],
      counterparty: settle.source,
      inline: settle.sent.references.length === 0,
    };
  if (kind === 'settlement' && poolWrites.some((r) => r.path.startsWith('/transfers')))
    return {
      id: `t:${first}`,
      kind: 'transfer',
      time: writeTime,
      amount,
      keys: nullifiers,
      anchor,
      sources: [...new Set(poolWrites.map((r) => r.source))],
      counterparty: text(e.recipient),
      inline: false,
    };
  if (kind === 'withdrawal')
    return {
      id: `e:${first}`,
      kind: 'exit',
      time: writeTime,
      amount,
      keys: nullifiers,
      anchor,
      sources: [...new Set(poolWrites.map((r) => r.source))],
      counterparty: text(e.recipient),
      inline: false,
    };
  return null;
}
