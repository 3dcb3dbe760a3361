/**
 * @module A network observer on the wallets' own links (an ISP, a Wi-Fi operator, anyone on the
 * path before a relay or a proxy): it cannot read what a wallet sends, but sees when data leaves,
 * how much and from which address. Recorded below every client, as the actors' addresses are
 * (`source-address.ts`): on each connection an actor opens, every burst of writes — writes less
 * than {@link BURST_GAP_MS} apart — is one upload, with its start and its bytes. A kept-alive
 * connection carries several requests; each is its own burst. A connection counts for the actor
 * that opened it, so the population's merchants close each after its reply (`merchants.ts`).
 */

import type net from 'node:net';

import { onActorConnection } from './source-address.js';

/** One upload as the observer sees it. */
export interface Upload {
  /** The address it left from. */
  readonly source: string;
  /** When it began, unix ms. */
  readonly time: number;
  /** Bytes it carried. */
  readonly bytes: number;
}

/** Writes closer than this belong to one upload (a body written in chunks). */
export const BURST_GAP_MS = 50;

interface Burst {
  source: string;
  time: number;
  bytes: number;
  last: number;
}

/** Records every actor's uploads until {@link stop}. */
export class LinkObserver {
  private readonly done: Upload[] = [];
  private readonly open = new Set<Burst>();
  private readonly detach: () => void;

  constructor() {
    this.detach = onActorConnection((socket, source) => this.watch(socket, source));
  }

  /** What it saw, in time order (bursts still open included). */
  uploads(): Upload[] {
    const open = [...this.open].map(({ source, time, bytes }) => ({ source, time, bytes }));
    return [...this.done, ...open].sort((a, b) => a.time - b.time);
  }

  /** Stops watching new connections (those watched already keep counting). */
  stop(): void {
    this.detach();
  }

  private watch(socket: net.Socket, source: string): void {
    const { open, done } = this;
    let burst: Burst | null = null;
    const close = () => {
      if (burst === null) return;
      open.delete(burst);
      done.push({ source: burst.source, time: burst.time, bytes: burst.bytes });
      burst = null;
    };
    const write = socket.write;
    socket.write = function (this: net.Socket, chunk: unknown, ...rest: unknown[]) {
      const now = Date.now();
      if (burst !== null && now - burst.last > BURST_GAP_MS) close();
      if (burst === null) {
        burst = { source, time: now, bytes: 0, last: now };
        open.add(burst);
      }
      burst.bytes += byteLength(chunk, rest[0]);
      burst.last = now;
      return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof socket.write;
    socket.once('close', close);
  }
}

function byteLength(chunk: unknown, encoding: unknown): number {
  if (typeof chunk === 'string')
    return Buffer.byteLength(
      chunk,
      typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8',
    );
  if (chunk instanceof Uint8Array) return chunk.byteLength;
  return 0;
}
