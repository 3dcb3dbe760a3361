/**
 * @module One send at a time per sending address in this process. The relayer and the watcher's
 * acceptances may sign with one key — `--operator-key-file FILE` and `OPERATOR_KEY` give every role
 * the same — and two sends that read the same pending nonce collide: the node refuses the second
 * (nonce too low), which the relayer answered as `relay_unavailable` (`priv-stark demo --chain`
 * once, 3 of 64 deposits in a linkage run). Held from the nonce's read to the node's answer, never
 * while a transaction waits to be mined.
 */

const turns = new Map<string, Promise<unknown>>();

/** Runs `send` once every send before it from `address` has had the node's answer. */
export function withSendLock<T>(address: string, send: () => Promise<T>): Promise<T> {
  const key = address.toLowerCase();
  const before = turns.get(key) ?? Promise.resolve();
  const turn = before.then(send, send);
  const settled = turn.catch(() => undefined);
  turns.set(key, settled);
  void settled.then(() => {
    if (turns.get(key) === settled) turns.delete(key);
  });
  return turn;
}
