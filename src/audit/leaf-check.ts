/**
 * @module The leaves' half of the log audit (docs/audit.md, "The audit"): every served leaf against
 * the event that explains it, and each attested root against the root of the served leaves at its
 * checkpoint's size. The roots come from one frontier the leaves are appended to in order, so every
 * attested root costs what its new leaves cost (not a rebuild of the tree per attestation), and a
 * resumed audit starts from the frontier the last one kept.
 */

import type { DigestHex } from '../core/digest.js';
import type { Frontier } from '../core/facade.js';
import type { AttestedClaim, AuditCore, AuditLogSource } from './audit-source.js';
import type { LogFold } from './log-fold.js';

/** An attested claim and the published checkpoint of its sequence (absent when none is). */
export interface LeafTarget {
  readonly claim: AttestedClaim;
  readonly checkpoint: { readonly root: string; readonly size: number } | undefined;
}

const PAGE = 1000;

/** The served leaves from `from` on. */
async function leavesFrom(source: AuditLogSource, from: number): Promise<DigestHex[]> {
  const leaves: DigestHex[] = [];
  for (;;) {
    const page = await source.leaves(from + leaves.length, PAGE);
    leaves.push(...page);
    if (page.length < PAGE) return leaves;
  }
}

/**
 * Checks the leaves from the fold's `explainedBelow` on and each target's root.
 * @param frontier the tree of the leaves below `fold.explainedBelow` (checked before)
 * @returns the frontier at the last target's size, for the next audit to resume from
 */
export async function checkLeaves(
  core: Pick<AuditCore, 'frontierAppendAsync'>,
  source: AuditLogSource,
  fold: LogFold,
  targets: readonly LeafTarget[],
  frontier: Frontier,
): Promise<Frontier> {
  const start = fold.explainedBelow;
  const leaves = await leavesFrom(source, start);
  const served = (index: number) => leaves[index - start] ?? null;
  // Every leaf an event read explains; below the last attested size every leaf must be explained
  // (leaves past both belong to events published after the log was read).
  const attested = targets.at(-1)?.checkpoint?.size ?? 0;
  for (let index = start; index < Math.max(attested, fold.leafEnd); index++) {
    const want = fold.expected.get(index);
    const leaf = served(index);
    if (want === undefined) fold.findings.add('leaf_unexplained', { index, leaf });
    else if (leaf !== want.leaf)
      fold.findings.add('leaf_unexplained', { index, event: want.event, leaf });
  }
  let tree = frontier;
  for (const { claim, checkpoint } of targets) {
    const size = checkpoint?.size;
    let root: string | null = null;
    if (size !== undefined && size >= tree.size && size <= start + leaves.length) {
      tree = await core.frontierAppendAsync(tree, leaves.slice(tree.size - start, size - start));
      root = tree.root;
    }
    if (checkpoint?.root !== claim.root || root !== claim.root)
      fold.findings.add('log_rewritten', {
        seq: claim.seq,
        attestedRoot: claim.root,
        checkpointRoot: checkpoint?.root ?? null,
        leavesRoot: root,
      });
  }
  return tree;
}
