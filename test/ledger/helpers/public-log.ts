/**
 * What the public log must be, read back from a store: each checkpoint publishes exactly the events
 * recorded since the previous one, listed by nullifier (a deposit by its commitment; ties by
 * arrival), each with its position as id and its checkpoint's time; nothing newer is published;
 * the published head is the latest checkpoint's.
 */

import type { Checkpoint, PoolEvent, PoolStore } from '../../../src/ledger/index.js';
import { allEvents } from './invariants.js';

/** The key the public log orders a checkpoint's events by. */
export function publicKey(event: PoolEvent): string {
  switch (event.kind) {
    case 'deposit':
      return event.commitment;
    case 'transition':
    case 'withdrawal':
      return event.nullifiers[0];
    default:
      return event.nullifier;
  }
}

/** The first leaf an event appended. */
function firstLeaf(event: PoolEvent): number {
  if (event.kind === 'settlement') return event.changeIndex;
  if (event.kind === 'transition' || event.kind === 'withdrawal') return event.outputIndexes[0];
  return event.index;
}

/** Every published event, by paging. */
export async function allPublished(store: PoolStore): Promise<PoolEvent[]> {
  const out: PoolEvent[] = [];
  for (;;) {
    const page = await store.publishedEvents(out.length, 1000);
    out.push(...page);
    if (page.length < 1000) return out;
  }
}

/** Every checkpoint, by paging. */
async function allCheckpoints(store: PoolStore): Promise<Checkpoint[]> {
  const out: Checkpoint[] = [];
  for (;;) {
    const page = await store.checkpoints(out.length, 1000);
    out.push(...page);
    if (page.length < 1000) return out;
  }
}

/**
 * The public log the store's own record implies: per checkpoint, its events sorted by
 * {@link publicKey} (ties by arrival), renumbered by position and timed by the checkpoint.
 */
export async function expectedPublicLog(store: PoolStore): Promise<PoolEvent[]> {
  const raw = await allEvents(store);
  const checkpoints = await allCheckpoints(store);
  const out: PoolEvent[] = [];
  let from = 0;
  for (const cp of checkpoints) {
    const own = raw
      .filter((e) => firstLeaf(e) >= from && firstLeaf(e) < cp.size)
      .sort((a, b) =>
        publicKey(a) < publicKey(b) ? -1 : publicKey(a) > publicKey(b) ? 1 : a.id - b.id,
      );
    for (const event of own) out.push({ ...event, id: out.length + 1, time: cp.time });
    from = cp.size;
  }
  return out;
}

/** What is wrong with the store's public log (empty when it is what the record implies). */
export async function publicLogProblems(store: PoolStore): Promise<string[]> {
  const problems: string[] = [];
  const published = await allPublished(store);
  const expected = await expectedPublicLog(store);
  if (JSON.stringify(published) !== JSON.stringify(expected))
    problems.push('the published events are not the checkpoints’ events in nullifier order');
  const head = await store.publishedState();
  const live = await store.state();
  if (head.events !== published.length)
    problems.push(`head says ${head.events} published events, ${published.length} served`);
  if (JSON.stringify(head.checkpoint) !== JSON.stringify(live.checkpoint))
    problems.push('the published head is not the latest checkpoint');
  if (head.size !== (live.checkpoint?.size ?? 0)) problems.push('the published size moved');
  return problems;
}
