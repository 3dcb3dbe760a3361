/**
 * @module Where the spend ledger is kept, so that a restart does not reset the 24-hour window: one
 * JSON file, mode 0600 (refused when others can read or write it), written to a temporary file,
 * fsynced and renamed; saves are serialised. A lock file beside it (`<file>.lock`, holding the
 * process id) keeps a second server off the same spend ledger — two servers would each see only
 * their own reservations and could together pass the limit.
 */

import { open, readFile, rename, stat, unlink } from 'node:fs/promises';

import { ToolError } from './errors.js';
import { type SpendEntry, SpendLedger } from './spend-ledger.js';

/** Locks this process holds (a pid check cannot tell this process's own lock from a stale one). */
const held = new Set<string>();

const STATUSES = new Set(['reserved', 'left', 'settled', 'expired', 'released']);

function isEntry(value: unknown): value is SpendEntry {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Record<string, unknown>;
  return (
    typeof e.id === 'string' &&
    typeof e.amount === 'string' &&
    /^[0-9]{1,19}$/.test(e.amount) &&
    typeof e.network === 'string' &&
    typeof e.asset === 'string' &&
    typeof e.payTo === 'string' &&
    typeof e.host === 'string' &&
    typeof e.url === 'string' &&
    typeof e.reservedAt === 'number' &&
    typeof e.status === 'string' &&
    STATUSES.has(e.status) &&
    (e.kind === undefined || e.kind === 'withdrawal') &&
    (e.note === undefined || typeof e.note === 'string')
  );
}

/** The spend-ledger file and its lock. */
export class LedgerFile {
  private saving: Promise<void> = Promise.resolve();
  private locked = false;

  private constructor(
    readonly path: string,
    /** The spend ledger kept in the file (`ledger`: the name is public, so it stays). */
    readonly ledger: SpendLedger,
  ) {}

  /**
   * Takes the lock and reads the spend ledger (empty when the file does not exist yet).
   * @throws ToolError `ledger_locked` when another live process holds it, `ledger_invalid`
   */
  static async open(path: string, clock: () => number = Date.now): Promise<LedgerFile> {
    await takeLock(`${path}.lock`);
    try {
      let entries: SpendEntry[] = [];
      const info = await stat(path).catch(() => null);
      if (info) {
        if (process.platform !== 'win32' && (info.mode & 0o077) !== 0) {
          throw new ToolError(
            'ledger_invalid',
            `the spend ledger ${path} is open to others (mode ${(info.mode & 0o777).toString(8)}); chmod 600 it`,
          );
        }
        let value: { version?: unknown; entries?: unknown } = {};
        try {
          value = JSON.parse(await readFile(path, 'utf8')) as typeof value;
        } catch {
          // Refused below.
        }
        if (
          value === null ||
          value.version !== 1 ||
          !Array.isArray(value.entries) ||
          !value.entries.every(isEntry)
        ) {
          throw new ToolError(
            'ledger_invalid',
            `the spend ledger ${path} is not one this version wrote`,
          );
        }
        entries = value.entries;
      }
      const file = new LedgerFile(path, new SpendLedger(entries, clock));
      file.locked = true;
      return file;
    } catch (error) {
      held.delete(`${path}.lock`);
      await unlink(`${path}.lock`).catch(() => undefined);
      throw error;
    }
  }

  /** Writes the spend ledger (serialised). */
  save(): Promise<void> {
    const snapshot = JSON.stringify({ version: 1, entries: this.ledger.entries() });
    this.saving = this.saving
      .catch(() => undefined)
      .then(() => writeAtomically(this.path, snapshot));
    return this.saving;
  }

  /** Waits for the last save and gives the lock back. */
  async close(): Promise<void> {
    await this.saving.catch(() => undefined);
    if (this.locked) {
      this.locked = false;
      held.delete(`${this.path}.lock`);
      await unlink(`${this.path}.lock`).catch(() => undefined);
    }
  }
}

async function writeAtomically(path: string, text: string): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(`${text}\n`);
    await handle.sync();
    await handle.chmod(0o600);
  } finally {
    await handle.close();
  }
  await rename(temp, path);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function takeLock(lock: string): Promise<void> {
  if (held.has(lock))
    throw new ToolError(
      'ledger_locked',
      `the spend ledger is already open in this process (${lock})`,
    );
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lock, 'wx', 0o600);
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      held.add(lock);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number((await readFile(lock, 'utf8').catch(() => '')).trim());
      if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new ToolError(
          'ledger_locked',
          `the spend ledger is in use by process ${pid} (${lock}): one server per wallet and ledger`,
        );
      }
      // A lock left by a process that is gone.
      await unlink(lock).catch(() => undefined);
    }
  }
  throw new ToolError('ledger_locked', `could not take the spend ledger's lock ${lock}`);
}
