/**
 * @module Calls between the primary process of `priv-stark start --workers N` and its workers,
 * over the IPC channel `node:cluster` opens (advanced serialization: a proof's bytes travel as a
 * `Uint8Array`): a numbered call, one reply. A call still open when the channel closes — the
 * other side died — is refused with `PoolUnavailableError`: its outcome cannot be known (a write
 * may have committed), so nothing built on it is acknowledged.
 */

import { PoolUnavailableError } from '../ledger/index.js';

/** Marks this module's messages among the channel's others (prom-client's, cluster's own). */
const TAG = 'priv-stark:call';

interface CallMessage {
  readonly tag: typeof TAG;
  readonly kind: 'call';
  readonly id: number;
  readonly method: string;
  readonly args: readonly unknown[];
}

interface ReplyMessage {
  readonly tag: typeof TAG;
  readonly kind: 'reply';
  readonly id: number;
  readonly ok: boolean;
  readonly result?: unknown;
  readonly message?: string;
}

/** One end of an IPC channel: a cluster worker seen from the primary, or `process` in a worker. */
export interface IpcEnd {
  /**
   * Absent on a process without a channel: every call is refused. With a callback a closed
   * channel is reported there, never as an `error` event that would stop the process.
   */
  send?(
    message: unknown,
    sendHandle: undefined,
    options: object,
    callback: (error: Error | null) => void,
  ): unknown;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'disconnect', listener: () => void): unknown;
}

function isTagged(message: unknown): message is CallMessage | ReplyMessage {
  return typeof message === 'object' && message !== null && (message as CallMessage).tag === TAG;
}

/** The calling side (a worker): `call` resolves with the other side's result. */
export class IpcCaller {
  private next = 1;
  private readonly pending = new Map<
    number,
    { resolve(value: unknown): void; reject(error: Error): void }
  >();
  private closed = false;

  constructor(private readonly end: IpcEnd) {
    end.on('message', (message) => {
      if (!isTagged(message) || message.kind !== 'reply') return;
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if (message.ok) waiting.resolve(message.result);
      else
        waiting.reject(new PoolUnavailableError(message.message ?? 'the primary process failed'));
    });
    end.on('disconnect', () => this.refuseAll());
  }

  /**
   * Calls `method` on the other side.
   * @throws PoolUnavailableError when it failed there or the channel closed before its reply
   */
  call<T>(method: string, args: readonly unknown[]): Promise<T> {
    if (this.closed) return Promise.reject(new PoolUnavailableError('the primary process is gone'));
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      try {
        if (!this.end.send) throw new Error('no IPC channel');
        this.end.send(
          { tag: TAG, kind: 'call', id, method, args } satisfies CallMessage,
          undefined,
          {},
          (error) => {
            if (!error || !this.pending.delete(id)) return;
            reject(new PoolUnavailableError('the primary process is gone', { cause: error }));
          },
        );
      } catch (error) {
        this.pending.delete(id);
        reject(new PoolUnavailableError('the primary process is gone', { cause: error }));
      }
    });
  }

  /** Calls still waiting for their reply. */
  get waiting(): number {
    return this.pending.size;
  }

  private refuseAll(): void {
    this.closed = true;
    for (const [id, waiting] of this.pending) {
      this.pending.delete(id);
      waiting.reject(new PoolUnavailableError('the primary process is gone'));
    }
  }
}

/** What the answering side (the primary) runs for each method. */
export type IpcHandlers = Readonly<
  Record<string, (...args: never[]) => Promise<unknown> | unknown>
>;

/**
 * Answers `end`'s calls with `handlers` (the primary, for one worker). A reply to a worker that
 * died meanwhile is dropped. Only the error's message crosses: never its fields, which may carry
 * request data.
 */
export function serveIpcCalls(end: IpcEnd, handlers: IpcHandlers): void {
  end.on('message', (message) => {
    if (!isTagged(message) || message.kind !== 'call') return;
    const handler = Object.hasOwn(handlers, message.method) ? handlers[message.method] : undefined;
    const reply = (fields: Omit<ReplyMessage, 'tag' | 'kind' | 'id'>) => {
      // A worker that is gone gets no reply: its call's outcome is unknown to it, as it would
      // be to a client whose connection dropped.
      try {
        end.send?.(
          { tag: TAG, kind: 'reply', id: message.id, ...fields } satisfies ReplyMessage,
          undefined,
          {},
          () => undefined,
        );
      } catch {
        // the channel closed between the check and the send
      }
    };
    if (!handler) {
      reply({ ok: false, message: `unknown call ${message.method}` });
      return;
    }
    Promise.resolve()
      .then(() => (handler as (...args: readonly unknown[]) => unknown)(...message.args))
      .then(
        (result) => reply({ ok: true, result }),
        (error: unknown) =>
          reply({ ok: false, message: error instanceof Error ? error.message : String(error) }),
      );
  });
}
