/**
 * @module A wallet in a file (Node): one JSON file with the spending key, notes, pending payments
 * and cursors, readable only by its owner (mode 0600, written to a temporary file, synced and
 * renamed, so a crash leaves the old or the new state, never half of one), and beside it the public
 * leaves (`<file>.leaves`, 32 bytes each, appended). Node's modules are imported when the store is
 * first used, so a browser bundle that never opens a file never runs them.
 */

import type { DigestHex } from '../core/digest.js';
import {
  packLeaves,
  type StoredWallet,
  unpackLeaves,
  type WalletState,
  type WalletStore,
} from './store.js';

const node = async () => {
  const [fs, process] = await Promise.all([import('node:fs/promises'), import('node:process')]);
  return { fs, process };
};

/** The wallet file at `path` (and `<path>.leaves`). */
export class FileWalletStore implements WalletStore {
  constructor(readonly path: string) {}

  get name(): string {
    return this.path;
  }

  /** Refuses an existing file (a wallet is never overwritten). */
  async create(state: WalletState): Promise<void> {
    const { fs } = await node();
    const exists = await fs.access(this.path).then(
      () => true,
      () => false,
    );
    if (exists) throw new Error(`wallet file ${this.path} already exists`);
    await this.save(state);
  }

  /** Reads the file; refuses one that others can read. */
  async load(): Promise<StoredWallet> {
    const { fs, process } = await node();
    const info = await fs.stat(this.path);
    if (process.platform !== 'win32' && (info.mode & 0o077) !== 0) {
      throw new Error(
        `wallet file ${this.path} is readable by others (mode ${(info.mode & 0o777).toString(8)}); chmod 600 it`,
      );
    }
    const state = JSON.parse(await fs.readFile(this.path, 'utf8')) as WalletState;
    const bytes = await fs.readFile(`${this.path}.leaves`).catch(() => new Uint8Array(0));
    return { state, leaves: unpackLeaves(bytes) };
  }

  /** Writes the file atomically with mode 0600. */
  async save(state: WalletState): Promise<void> {
    const { fs, process } = await node();
    const temp = `${this.path}.${process.pid}.tmp`;
    const handle = await fs.open(temp, 'w', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(state)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.chmod(temp, 0o600);
    await fs.rename(temp, this.path);
  }

  /** Appends to `<path>.leaves`, first cutting it to `from` leaves (a torn earlier append). */
  async appendLeaves(from: number, leaves: readonly DigestHex[]): Promise<void> {
    const { fs } = await node();
    const file = `${this.path}.leaves`;
    const handle = await fs.open(file, 'a', 0o600);
    try {
      const size = (await handle.stat()).size;
      if (size !== from * 32) await fs.truncate(file, from * 32);
      const bytes = packLeaves(leaves);
      await handle.write(bytes, 0, bytes.length, from * 32);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}
