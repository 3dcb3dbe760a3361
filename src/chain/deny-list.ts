/**
 * @module The operator's deny list (`--deny-list FILE`): depositors whose deposits the pool
 * declines (their funds stay theirs to reclaim at once). One EVM address per line, `#` starts a
 * comment, blank lines ignored. The file is read again whenever its modification time or size
 * changes, so screening lists can be updated without a restart; a file that became unreadable or
 * malformed keeps the last good list and says so.
 */

import { readFileSync, statSync } from 'node:fs';

import { getAddress, isAddress } from 'viem';

/** The most addresses a list may hold. */
export const MAX_DENY_LIST_ENTRIES = 1_000_000;

/**
 * Parses a deny list's text into lowercase addresses.
 * @throws RangeError naming the first bad line (its number, not its text past 60 characters)
 */
export function parseDenyList(text: string, where = 'deny list'): Set<string> {
  const out = new Set<string>();
  const lines = text.split(/\r?\n/);
  for (const [i, line] of lines.entries()) {
    const entry = line.replace(/#.*/, '').trim();
    if (entry === '') continue;
    if (!isAddress(entry, { strict: false }))
      throw new RangeError(
        `${where} line ${i + 1}: not an address: ${JSON.stringify(entry.slice(0, 60))}`,
      );
    out.add(getAddress(entry).toLowerCase());
    if (out.size > MAX_DENY_LIST_ENTRIES)
      throw new RangeError(`${where} holds more than ${MAX_DENY_LIST_ENTRIES} addresses`);
  }
  return out;
}

/** A deny list kept from a file. */
export class DenyList {
  private entries: Set<string>;
  private stamp: string;
  /** The last reload's failure, `null` when the file in force is the file on disk. */
  problem: string | null = null;

  /**
   * Reads `path` now.
   * @throws RangeError or the file system's error when the first read fails (the node refuses to start)
   */
  constructor(readonly path: string) {
    this.stamp = DenyList.stampOf(path);
    this.entries = parseDenyList(readFileSync(path, 'utf8'), path);
  }

  private static stampOf(path: string): string {
    const stat = statSync(path);
    return `${stat.mtimeMs}:${stat.size}`;
  }

  /** How many addresses are denied. */
  get size(): number {
    return this.entries.size;
  }

  /** Whether `address` is denied (reading the file again first if it changed). */
  denies(address: string): boolean {
    this.refresh();
    return this.entries.has(address.toLowerCase());
  }

  /** Reads the file again if it changed; keeps the last good list when it cannot. */
  refresh(): void {
    try {
      const stamp = DenyList.stampOf(this.path);
      if (stamp === this.stamp) return;
      // Read once per change: a bad file is not parsed again until it changes again.
      this.stamp = stamp;
      this.entries = parseDenyList(readFileSync(this.path, 'utf8'), this.path);
      this.problem = null;
    } catch (error) {
      this.problem = error instanceof Error ? error.message : String(error);
    }
  }
}
