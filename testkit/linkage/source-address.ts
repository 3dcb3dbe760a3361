/**
 * @module Each simulated actor on its own loopback address: code run inside
 * {@link withSourceAddress} opens its TCP connections from that address (Linux routes all of
 * 127.0.0.0/8 to loopback and lets a socket bind any of it), so the operator's recording proxy
 * sees one address per wallet as it would see one machine per wallet. It works below every
 * client — `fetch`, `node:http`, a SOCKS client — by setting `localAddress` on each loopback
 * connection opened in that async context; the product is not changed. Connections are bound when
 * opened, so the proxy closes each after its reply (a kept-alive socket would carry another
 * actor's next request).
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import net from 'node:net';

/** The address of the actor whose code runs: read when each connection opens (sessions move it). */
const actor = new AsyncLocalStorage<() => string>();
let installed = false;
/** Told of each connection an actor opens, with its address (`onActorConnection`). */
const connectionListeners = new Set<(socket: net.Socket, address: string) => void>();

interface ConnectOptions {
  host?: string;
  path?: string | null;
  // undici passes `localAddress: null` when none is set.
  localAddress?: string | null;
}

const loopback = (host: string | undefined) =>
  host === undefined || host === 'localhost' || host.startsWith('127.');

/** Patches `net.Socket.prototype.connect` once per process (idempotent). */
function install(): void {
  if (installed) return;
  installed = true;
  const original = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function connect(this: net.Socket, ...args: unknown[]) {
    const address = actor.getStore()?.();
    if (address !== undefined) {
      // net.connect passes [options, callback] as one normalised array; others pass options.
      const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
      if (first !== null && typeof first === 'object') {
        const options = first as ConnectOptions;
        if (options.path == null && options.localAddress == null && loopback(options.host))
          options.localAddress = address;
      }
    }
    const socket = (original as (...a: unknown[]) => net.Socket).apply(this, args);
    if (address !== undefined) for (const listener of connectionListeners) listener(this, address);
    return socket;
  } as typeof original;
}

/**
 * Calls `listener` with each connection an actor opens from here on, and its address (as a
 * network observer on that actor's link would see it); returns the function that stops it.
 */
export function onActorConnection(
  listener: (socket: net.Socket, address: string) => void,
): () => void {
  install();
  connectionListeners.add(listener);
  return () => connectionListeners.delete(listener);
}

/**
 * Runs `work` (and everything it starts) with connections from `address` (a 127.x.y.z), or from
 * what `address()` says when each connection opens — an actor whose address changes between its
 * sessions keeps its timers' connections on its current one.
 */
export function withSourceAddress<T>(address: string | (() => string), work: () => T): T {
  install();
  return actor.run(typeof address === 'string' ? () => address : address, work);
}

/** The address connections opened here come from (undefined: the default, 127.0.0.1). */
export function currentSourceAddress(): string | undefined {
  return actor.getStore()?.();
}

/** The `i`-th actor's address: 127.1.x.y for i ≥ 0, never 127.0.0.1. */
export function actorAddress(i: number): string {
  return `127.1.${Math.floor(i / 250)}.${(i % 250) + 1}`;
}

/**
 * The address of wallet `i`'s session `s` when each session has its own (a proxy circuit or a
 * network that changes between sessions): 127.(16 + i / 250).(i mod 250).(s mod 250 + 1), apart
 * from every other actor's range.
 */
export function sessionAddress(i: number, s: number): string {
  return `127.${16 + Math.floor(i / 250)}.${i % 250}.${(s % 250) + 1}`;
}
