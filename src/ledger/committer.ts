/**
 * @module Group commit: ops submitted while a group is being committed wait and go together in the
 * next group, so one durable commit (one fsync) carries many ops. Nothing waits on a
 * timer: a lone op commits at once, and groups grow only when commits are the bottleneck. Each op's
 * promise resolves after the commit that holds it, so durability is the same as one commit per op.
 */

import { hasExpired } from '../scheme/index.js';
import { activeContext, inContext, type TraceContext } from '../tracing/spans.js';
import { CommitStats } from './commit-stats.js';
import type { PoolStore, StoreOp, StoreOpResult } from './store.js';

/** What a submitted op resolves to: the store's verdict, or expiry by the pool's clock at commit time. */
export type CommitResult =
  | StoreOpResult
  | { readonly ok: false; readonly reason: 'payment_expired' };

interface Pending {
  readonly op: StoreOp;
  /** Unix seconds; the op is refused if the clock has reached it when its group commits. */
  readonly expiry: number | undefined;
  /** The submitter's trace context: its group's store call is traced under the first op's. */
  readonly context: TraceContext;
  /** `performance.now()` at submit. */
  readonly submittedAt: number;
  readonly resolve: (result: CommitResult) => void;
  readonly reject: (error: unknown) => void;
}

/** Serialises a process's writes into groups. */
export class GroupCommitter {
  private queue: Pending[] = [];
  private running: Promise<void> | null = null;
  /** Group sizes, queue waits and apply times since start (`commit-stats.ts`). */
  readonly stats = new CommitStats();

  /**
   * @param store where groups are applied
   * @param clock unix milliseconds
   * @param maxGroup the most ops in one group
   */
  constructor(
    private readonly store: PoolStore,
    private readonly clock: () => number,
    private readonly maxGroup = 512,
  ) {}

  /** Queues an op; resolves once its group is durable, rejects with the store's error if that group failed. */
  submit(op: StoreOp, expiry?: number): Promise<CommitResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({
        op,
        expiry,
        context: activeContext(),
        submittedAt: performance.now(),
        resolve,
        reject,
      });
      this.stats.queued(this.queue.length);
      this.running ??= this.drain();
    });
  }

  /** Resolves when everything submitted so far has been committed or failed. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        // Wait one event-loop turn: every callback that is ready now (verifications that finished
        // while the previous group was committing) submits first, and joins this group.
        await new Promise((resolve) => setImmediate(resolve));
        const group = this.queue.splice(0, this.maxGroup);
        this.stats.queued(this.queue.length);
        const now = this.clock();
        const live: Pending[] = [];
        for (const pending of group) {
          if (pending.expiry !== undefined && hasExpired(pending.expiry, Math.floor(now / 1000))) {
            pending.resolve({ ok: false, reason: 'payment_expired' });
          } else {
            live.push(pending);
          }
        }
        if (live.length === 0) continue;
        const started = performance.now();
        let queueWaitMs = 0;
        for (const pending of live) queueWaitMs += started - pending.submittedAt;
        try {
          // Under the first op's context: the drain loop itself runs in whichever request started
          // it, which may have finished long ago.
          const results = await inContext(live[0]!.context, () =>
            this.store.apply(
              live.map((p) => p.op),
              now,
            ),
          );
          this.stats.group(live.length, queueWaitMs, performance.now() - started);
          live.forEach((pending, i) => {
            const result = results[i];
            if (result) pending.resolve(result);
            else pending.reject(new Error('the store returned fewer results than ops'));
          });
        } catch (error) {
          for (const pending of live) pending.reject(error);
        }
      }
    } finally {
      this.running = null;
    }
  }
}
