/**
 * @module The wallet's own copy of the pool tree, rebuilt from the public leaves (never from a
 * path served by anyone: asking for one path would reveal which note is ours). It keeps the nodes
 * of every complete subtree, so appending costs one hash per node and the authentication path of
 * any leaf against any earlier tree size — a checkpoint — costs a few dozen hashes.
 */

import type { DigestHex } from '../core/digest.js';
import { type PrivStarkCore, TREE_DEPTH } from '../core/facade.js';

const ZERO_LEAF = `0x${'0'.repeat(64)}` as DigestHex;

/** The hashing the tree needs. */
export type TreeCore = Pick<PrivStarkCore, 'merge' | 'mergePairs'>;

/**
 * An append-only Merkle tree of depth 32 holding the nodes of its complete subtrees.
 * @example
 * const tree = new LocalTree(core);
 * tree.append(leaves);
 * const path = tree.path(3, checkpoint.size); // siblings, leaf level first
 * tree.root(checkpoint.size) === checkpoint.root;
 */
export class LocalTree {
  /** `levels[h][i]` = root of the complete subtree of height `h` at position `i`. */
  private readonly levels: DigestHex[][] = Array.from({ length: TREE_DEPTH + 1 }, () => []);
  private readonly zeros: DigestHex[];

  constructor(private readonly core: TreeCore) {
    this.zeros = [ZERO_LEAF];
    for (let h = 0; h < TREE_DEPTH; h++)
      this.zeros.push(core.merge(this.zeros[h]!, this.zeros[h]!));
  }

  /** Leaves held. */
  get size(): number {
    return this.levels[0]!.length;
  }

  /** The leaf at `index`. */
  leaf(index: number): DigestHex | undefined {
    return this.levels[0]![index];
  }

  /** Every leaf, in order (a copy). */
  leaves(): DigestHex[] {
    return this.levels[0]!.slice();
  }

  /**
   * Appends leaves, hashing each newly completed subtree once — a level at a time, in one core
   * call per level (a sync appends pages of thousands of leaves).
   */
  append(leaves: readonly DigestHex[]): void {
    const base = this.levels[0]!;
    for (const leaf of leaves) base.push(leaf);
    const n = base.length;
    for (let h = 1; h <= TREE_DEPTH; h++) {
      const below = this.levels[h - 1]!;
      const level = this.levels[h]!;
      const complete = Math.floor(n / 2 ** h);
      if (level.length === complete) break;
      const children = below.slice(2 * level.length, 2 * complete);
      for (const parent of this.core.mergePairs(children)) level.push(parent);
    }
  }

  /**
   * Drops every leaf from `size` on, and the subtrees they completed (leaves a sync could not
   * verify go before the wallet keeps anything built on them).
   * @throws RangeError when `size` exceeds the leaves held
   */
  truncate(size: number): void {
    this.checkSize(size);
    for (let h = 0; h <= TREE_DEPTH; h++) {
      const level = this.levels[h]!;
      level.length = Math.min(level.length, Math.floor(size / 2 ** h));
    }
  }

  /** The node of height `h` at position `i` in the tree of the first `size` leaves. */
  private node(h: number, i: number, size: number): DigestHex {
    const span = 2 ** h;
    const start = i * span;
    if (start >= size) return this.zeros[h]!;
    if (start + span <= size) {
      const stored = this.levels[h]![i];
      if (stored !== undefined) return stored;
    }
    return this.core.merge(this.node(h - 1, 2 * i, size), this.node(h - 1, 2 * i + 1, size));
  }

  /**
   * The root of the tree of the first `size` leaves (default: all).
   * @throws RangeError when `size` exceeds the leaves held
   */
  root(size = this.size): DigestHex {
    this.checkSize(size);
    return this.node(TREE_DEPTH, 0, size);
  }

  /**
   * The authentication path (32 siblings, leaf level first) of leaf `index` in the tree of the
   * first `size` leaves.
   * @throws RangeError when `index` is not below `size` or `size` exceeds the leaves held
   */
  path(index: number, size = this.size): DigestHex[] {
    this.checkSize(size);
    if (!Number.isSafeInteger(index) || index < 0 || index >= size) {
      throw new RangeError(`"index" expected an integer in 0..${size - 1}, got ${index}`);
    }
    const out: DigestHex[] = [];
    for (let h = 0; h < TREE_DEPTH; h++) {
      const position = Math.floor(index / 2 ** h);
      out.push(this.node(h, position % 2 === 0 ? position + 1 : position - 1, size));
    }
    return out;
  }

  private checkSize(size: number): void {
    if (!Number.isSafeInteger(size) || size < 0 || size > this.size) {
      throw new RangeError(`"size" expected an integer in 0..${this.size}, got ${size}`);
    }
  }
}
