/**
 * @module A wallet's note transitions (`POST /transitions`, proven by the wallet): merging two of
 * its notes, splitting one privately, and exits out of the pool to an external account — one or two
 * notes in, two outputs out, the pool seeing nullifiers and commitments and, for an exit, the amount
 * and the destination.
 */

import type { DigestHex } from '../core/digest.js';
import { MIN_OUTPUT_VALUE, type TransitionWitness } from '../core/transition.js';
import { randomDigest } from '../core/witness.js';
import { type PoolNodeClient, PoolNodeError } from '../pool-node/client.js';
import type { TransitionReceipt } from '../pool-node/transition-schema.js';
import {
  checkDestination,
  encodeProof,
  exitContext,
  expiryFor,
  isAmount,
  SCHEME,
  TRANSFER_MAX_TIMEOUT_SECONDS,
  transitionContext,
} from '../scheme/index.js';
import { InsufficientFundsError, UnpayableRequirementsError, WalletBehindError } from './errors.js';
import type { StoredNote } from './store.js';
import type { WalletContext } from './wallet-context.js';
import { ownNote, reserveNotes, shownNotes, spendableNotes } from './wallet-notes.js';

/** The digest of zeros: every sibling on a dummy input's path. */
const DIGEST_ZERO = `0x${'0'.repeat(64)}` as DigestHex;

/** See `Wallet.mergeNotes`. */
export async function mergeNotes(
  context: WalletContext,
  commitments?: readonly [string, string],
): Promise<TransitionReceipt> {
  const notes = commitments
    ? commitments.map((c) => ownNote(context, c))
    : mergeablePair(spendableNotes(context));
  if (notes.length !== 2 || notes[0]!.commitment === notes[1]!.commitment)
    throw new UnpayableRequirementsError(
      `a merge needs two distinct spendable notes worth at least ${MIN_OUTPUT_VALUE} together`,
    );
  const total = BigInt(notes[0]!.value) + BigInt(notes[1]!.value);
  if (total < MIN_OUTPUT_VALUE)
    throw new UnpayableRequirementsError(
      `the two notes hold ${total} together: a merged note must hold at least ${MIN_OUTPUT_VALUE}`,
    );
  return applyNoteTransition(context, notes, [total, 0n]);
}

/** See `Wallet.splitPrivately`. */
export async function splitPrivately(
  context: WalletContext,
  commitment: string,
  amount: bigint | string,
): Promise<TransitionReceipt> {
  const note = ownNote(context, commitment);
  const first = BigInt(amount);
  const rest = BigInt(note.value) - first;
  if (first < MIN_OUTPUT_VALUE || rest < MIN_OUTPUT_VALUE)
    throw new UnpayableRequirementsError(
      `both parts of a split must be at least ${MIN_OUTPUT_VALUE} (the note holds ${note.value})`,
    );
  return applyNoteTransition(context, [note], [first, rest]);
}

/** See `Wallet.refreshShownNotes`. */
export async function refreshShownNotes(context: WalletContext): Promise<TransitionReceipt[]> {
  const shown = shownNotes(context);
  const receipts: TransitionReceipt[] = [];
  for (const note of context.state.notes) {
    // A shown note below the minimum output cannot be refreshed alone: it waits for a merge.
    if (!shown.has(note.commitment) || BigInt(note.value) < MIN_OUTPUT_VALUE) continue;
    receipts.push(
      await applyNoteTransition(
        context,
        [ownNote(context, note.commitment)],
        [BigInt(note.value), 0n],
      ),
    );
  }
  return receipts;
}

/** See `Wallet.exit`. */
export async function exit(
  context: WalletContext,
  destination: string,
  amount: bigint | string,
  options: { readonly note?: string | undefined },
): Promise<TransitionReceipt> {
  const checked = checkDestination(destination);
  if (!checked.ok)
    throw new UnpayableRequirementsError(`the destination is refused: ${checked.why}`);
  const value = typeof amount === 'bigint' ? amount.toString() : amount;
  if (!isAmount(value))
    throw new UnpayableRequirementsError(
      `amount ${value.slice(0, 32)} is not decimal atomic units below 2^62`,
    );
  const wanted = BigInt(value);
  const fits = (n: StoredNote) => {
    const change = BigInt(n.value) - wanted;
    return change === 0n || change >= MIN_OUTPUT_VALUE;
  };
  let note: StoredNote | undefined;
  if (options.note !== undefined) {
    note = ownNote(context, options.note);
    if (!fits(note))
      throw new UnpayableRequirementsError(
        `the note's change would be below ${MIN_OUTPUT_VALUE}: exit all of it or less`,
      );
  } else {
    note = spendableNotes(context)
      .filter(fits)
      .sort((a, b) => (BigInt(a.value) < BigInt(b.value) ? -1 : 1))[0];
    if (!note) {
      const notes = spendableNotes(context);
      const largest = notes.reduce((m, n) => (BigInt(n.value) > m ? BigInt(n.value) : m), 0n);
      const total = notes.reduce((sum, n) => sum + BigInt(n.value), 0n);
      throw new InsufficientFundsError(wanted, total, largest);
    }
  }
  const change = BigInt(note.value) - wanted;
  return applyNoteTransition(context, [note], [change, 0n], { amount: wanted, destination });
}

/** Proves and submits a transition of `notes` (one or two) into two outputs of these values. */
async function applyNoteTransition(
  context: WalletContext,
  notes: readonly StoredNote[],
  outputs: readonly [bigint, bigint],
  withdrawal?: { readonly amount: bigint; readonly destination: string },
): Promise<TransitionReceipt> {
  const checkpoint = context.state.checkpoint;
  if (!checkpoint) throw new WalletBehindError('the wallet has not synced a checkpoint yet');
  // Reserved in the step that chose them (before the first await): no payment takes them meanwhile.
  reserveNotes(context, notes, withdrawal ? 'exit' : 'transition');
  let sent = false;
  let receipt: TransitionReceipt | undefined;
  try {
    // The transport first: in private-only mode without one, nothing is proved or sent.
    const node = await context.poolTransport.node('transition');
    const zeros = Array.from({ length: 32 }, () => DIGEST_ZERO);
    const inputs = [0, 1].map((i) => {
      const note = notes[i];
      if (!note) return { value: '0', rho: randomDigest(), index: 0, path: zeros };
      return {
        value: note.value,
        rho: note.rho,
        index: note.index,
        path: context.tree.path(note.index, checkpoint.size),
      };
    }) as unknown as TransitionWitness['inputs'];
    const expiry = expiryFor(Math.floor(context.clock() / 1000), TRANSFER_MAX_TIMEOUT_SECONDS / 2);
    const ctx = context.core.contextDigest(
      withdrawal
        ? exitContext(context.network, withdrawal.destination, withdrawal.amount.toString(), expiry)
        : transitionContext(context.network, expiry),
    );
    const proveAndSend = async (parameterSet?: number) => {
      const { proof, publicInputs } = await context.core.proveTransition(
        {
          sk: context.state.sk,
          inputs,
          outputs: [outputs[0].toString(), outputs[1].toString()],
          exit: withdrawal ? withdrawal.amount.toString() : '0',
          ctx,
        },
        { parameterSet },
      );
      if (publicInputs.root !== checkpoint.root)
        throw new WalletBehindError('the notes do not lead to the synced checkpoint');
      return node.transition({
        scheme: SCHEME,
        network: context.network.network,
        root: publicInputs.root,
        nullifiers: publicInputs.nullifiers,
        outputs: publicInputs.outputs,
        memo: publicInputs.memo,
        refund: publicInputs.refund,
        ...(withdrawal
          ? { exit: withdrawal.amount.toString(), destination: withdrawal.destination }
          : {}),
        expiry,
        proof: encodeProof(proof),
      });
    };
    receipt = await sendInASetThePoolAccepts(context, node, proveAndSend);
    sent = true;
  } finally {
    // Spent: kept from payments until the log shows it (the pool publishes at its next checkpoint).
    if (!sent) context.reserved.release(notes.map((n) => n.commitment));
  }
  return receipt!;
}

/**
 * Proves and sends with `proveAndSend` under the set this wallet's pool node accepts. A node that
 * does not accept the set proven (an older release accepts 16 only) refuses the proof: the newest
 * set its /health lists is proven, once, through the same transport, and kept in the wallet's state
 * — in the file, for the next command. While an older set is kept, the node's /health is read
 * first (one read through the same transport, not a refused proof), so the wallet proves the newest
 * set again as soon as the node lists it and is not left in the older set's smaller crowd.
 */
async function sendInASetThePoolAccepts(
  context: WalletContext,
  node: PoolNodeClient,
  proveAndSend: (parameterSet?: number) => Promise<TransitionReceipt>,
): Promise<TransitionReceipt> {
  const sets = context.core.transitionParameterSets();
  const known = sets.map((set) => set.id);
  const newest = sets.find((set) => set.prover)?.id;
  let older = await keptOlderSet(context, node, known, newest);
  try {
    return await proveAndSend(older);
  } catch (error) {
    const choice = isProofRefusal(error) ? await newestSetThePoolAccepts(node, known) : undefined;
    if (choice === undefined || choice === (older ?? newest)) throw error;
    older = choice === newest ? undefined : choice;
    const receipt = await proveAndSend(older);
    await keepOlderSet(context, older);
    return receipt;
  }
}

/**
 * The older set the wallet keeps, checked against the node's /health: undefined (prove the newest)
 * when none is kept, when this build no longer knows it, or when the node now lists a newer one.
 */
async function keptOlderSet(
  context: WalletContext,
  node: PoolNodeClient,
  known: readonly number[],
  newest: number | undefined,
): Promise<number | undefined> {
  const kept = context.state.transitionSet;
  if (kept === undefined || !known.includes(kept)) return undefined;
  const listed = await newestSetThePoolAccepts(node, known);
  if (listed === undefined || listed === kept) return kept;
  const older = listed === newest ? undefined : listed;
  await keepOlderSet(context, older);
  return older;
}

/** Keeps `older` in the wallet's state (undefined: none, the newest is proven) and saves it. */
async function keepOlderSet(context: WalletContext, older: number | undefined): Promise<void> {
  if (context.state.transitionSet === older) return;
  if (older === undefined) delete context.state.transitionSet;
  else context.state.transitionSet = older;
  await context.save().catch(() => undefined);
}

/** A refusal of the proof itself by the pool node (any other refusal is not about the set). */
function isProofRefusal(error: unknown): boolean {
  return error instanceof PoolNodeError && error.code === 'invalid_priv_stark_proof';
}

/**
 * The newest of the `known` transition sets (newest first) that `node` accepts; undefined when
 * `/health` cannot be read or lists none of them. A node whose `/health` lists no
 * `transitionParameterSets` is of a release before set 17: it accepts set 16.
 */
async function newestSetThePoolAccepts(
  node: PoolNodeClient,
  known: readonly number[],
): Promise<number | undefined> {
  let accepted: readonly number[];
  try {
    accepted = (await node.health()).transitionParameterSets?.map((set) => set.id) ?? [16];
  } catch {
    return undefined;
  }
  return known.find((id) => accepted.includes(id));
}

/**
 * The pair a merge takes by default: the smallest note, with the smallest other note that brings
 * the pair to `MIN_OUTPUT_VALUE` (dust merges into something spendable); none when no pair reaches it.
 */
function mergeablePair(notes: readonly StoredNote[]): StoredNote[] {
  const sorted = [...notes].sort((a, b) => (BigInt(a.value) < BigInt(b.value) ? -1 : 1));
  for (let i = 0; i < sorted.length; i++)
    for (let j = i + 1; j < sorted.length; j++)
      if (BigInt(sorted[i]!.value) + BigInt(sorted[j]!.value) >= MIN_OUTPUT_VALUE)
        return [sorted[i]!, sorted[j]!];
  return [];
}
