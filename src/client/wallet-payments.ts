/**
 * @module A wallet's payments: the requirements it can pay, the statement (context, anchor path,
 * change), the pending record written before anything leaves, the proof built meanwhile, and the
 * payload — inline, or its proof handed over to the pool node for a reference (compact payments).
 * Transfers through the pool node are payments bound to the pool's transfer context.
 */

import type { DigestHex } from '../core/digest.js';
import type { SpendProof } from '../core/spend.js';
import { changeRhoOf, commitmentOf, precommitmentOf } from '../core/witness.js';
import { type PoolNodeClient, PoolNodeError } from '../pool-node/client.js';
import type { TransferReceipt } from '../pool-node/transfer-schema.js';
import {
  decodeProof,
  encodeProof,
  expiryFor,
  isAmount,
  type NetworkProfile,
  PROOF_TRANSPORTS,
  type PaymentRequirements,
  type PrivStarkPayload,
  type ProofTransport,
  paymentContext,
  resourceIdOf,
  SCHEME,
  TRANSFER_MAX_TIMEOUT_SECONDS,
  TRANSFER_RESOURCE_ID,
} from '../scheme/index.js';
import { InsufficientFundsError, PoolMismatchError, UnpayableRequirementsError } from './errors.js';
import { type Merchant, merchantOf, type RelayMiss, relayHandOver } from './merchant-relay.js';
import { NoPrivateTransportError } from './pool-transport.js';
import type { StoredNote, StoredPending, WalletState } from './store.js';
import type { WalletContext } from './wallet-context.js';
import { coveringNote, ownNote, reserveNotes } from './wallet-notes.js';

/** How `Wallet.createPayment` carries the proof. */
export type PaymentTransport = ProofTransport;

/** What a payment's proof proves besides the note: its expiry and context, the path, the change. */
interface SpendStatement {
  /** Unix seconds. */
  readonly expiry: number;
  readonly ctx: DigestHex;
  readonly path: DigestHex[];
  readonly changeValue: string;
  readonly change: DigestHex;
}

/** See `Wallet.createPayment`. */
export async function createPayment(
  context: WalletContext,
  requirements: PaymentRequirements,
  options: {
    maxAmount?: bigint | undefined;
    transport?: PaymentTransport | undefined;
    resourceUrl?: string | undefined;
  },
): Promise<PrivStarkPayload> {
  // 1. Requirements this wallet can pay; 2. the note that pays them.
  checkPayable(context, requirements, options.maxAmount);
  const merchant = merchantOf(options.resourceUrl, requirements);
  const transport = options.transport ?? transportFor(context, requirements, merchant);
  // Private only: refused before anything is recorded when no private way exists at all.
  if (
    transport === 'reference' &&
    merchant?.relay == null &&
    context.poolTransport.mode === 'private-only' &&
    (await context.poolTransport.privateFetch()) === null
  )
    throw new NoPrivateTransportError('hand-over');
  const note = coveringNote(context, BigInt(requirements.amount));
  reserveNotes(context, [note], 'payment');
  return payFrom(context, note, requirements, transport, merchant);
}

/**
 * Requirements this wallet can pay: its scheme, network and asset, an amount (within `maxAmount`),
 * a shielded `payTo`, a positive timeout, and a merchant's route — never the pool's transfer context.
 * @throws UnpayableRequirementsError
 */
function checkPayable(
  context: WalletContext,
  requirements: PaymentRequirements,
  maxAmount: bigint | undefined,
): void {
  const network = context.network;
  if (requirements.scheme !== SCHEME)
    throw new UnpayableRequirementsError(`scheme ${requirements.scheme} is not ${SCHEME}`);
  if (requirements.network !== network.network)
    throw new UnpayableRequirementsError(
      `network ${requirements.network} is not the wallet's ${network.network}`,
    );
  if (requirements.asset !== network.asset)
    throw new UnpayableRequirementsError(
      `asset ${requirements.asset} is not the network's ${network.asset}`,
    );
  if (!isAmount(requirements.amount))
    throw new UnpayableRequirementsError(
      `amount ${requirements.amount.slice(0, 32)} is not decimal atomic units below 2^62`,
    );
  if (maxAmount !== undefined && BigInt(requirements.amount) > maxAmount) {
    throw new UnpayableRequirementsError(
      `amount ${requirements.amount} is above the spend cap of ${maxAmount}`,
    );
  }
  try {
    context.core.decodeAddress(requirements.payTo);
  } catch {
    throw new UnpayableRequirementsError(`payTo is not a shielded address`);
  }
  if (!Number.isSafeInteger(requirements.maxTimeoutSeconds) || requirements.maxTimeoutSeconds < 1) {
    throw new UnpayableRequirementsError('maxTimeoutSeconds must be a positive integer');
  }
  // The pool's transfer context is not a merchant's: a proof for it settles at the pool node
  // without the merchant's facilitator, and the wallet tells its transfers by it.
  if (resourceIdOf(requirements) === TRANSFER_RESOURCE_ID)
    throw new UnpayableRequirementsError(
      `resourceId ${TRANSFER_RESOURCE_ID} is the pool's transfer context, not a merchant's route`,
    );
}

/**
 * Pays `requirements` from `note` (chosen and reserved synchronously by the caller, so no other
 * payment or transition takes it; released here): the statement, the pending record written before
 * anything leaves, the proof, then the payload — inline, or handed over for a reference.
 */
async function payFrom(
  context: WalletContext,
  note: StoredNote,
  requirements: PaymentRequirements,
  transport: PaymentTransport,
  merchant: Merchant | null,
): Promise<PrivStarkPayload> {
  const { core, state } = context;
  const checkpoint = state.checkpoint!;
  try {
    // 3. The statement: context, anchor path, change.
    const statement = spendStatement(context, note, requirements, checkpoint);

    // 4. Pending before anything leaves.
    const pending = pendingRecord(context, note, requirements, statement);
    state.pending.push(pending);
    const recorded = context.save();

    // 5. The proof, built while the record is written: the payload leaves only once both are done.
    const proving = Promise.resolve().then(() =>
      core.proveSpend({
        sk: state.sk,
        value: note.value,
        rho: note.rho,
        index: note.index,
        path: statement.path,
        amount: requirements.amount,
        ctx: statement.ctx,
      }),
    );
    const [saved, built] = await Promise.allSettled([recorded, proving]);
    const failure = failureOf(saved, built, note, statement.change, checkpoint);
    if (failure !== null || built.status === 'rejected') {
      // Nothing left the wallet: forget the record (a copy already written only locks the note
      // until its expiry).
      await forget(context, pending);
      throw failure;
    }
    const inline: PrivStarkPayload = {
      scheme: SCHEME,
      network: requirements.network,
      root: checkpoint.root,
      nullifier: note.nullifier,
      commitment: statement.change,
      proof: encodeProof(built.value.proof),
      amount: requirements.amount,
      recipient: requirements.payTo,
      expiry: statement.expiry,
    };
    if (transport === 'inline') return inline;
    try {
      // After a relay that did not take it, inline where the merchant takes it (nothing handed over).
      const inlineAfterRelay = offered(requirements).includes('inline');
      return await handOver(context, inline, requirements, merchant, inlineAfterRelay);
    } catch (error) {
      // A refusal (4xx): the node kept nothing, so the payment can never settle — but the
      // nullifier reached the operator, with the address it came from. The record is closed as
      // shown (`expired`), so the note is refreshed before it pays again rather than show that
      // nullifier elsewhere (docs/privacy.md, "Notes"). Without a clear answer the node may hold
      // the proof: the record stays, pending until the pool's log resolves it.
      if (error instanceof PoolNodeError && error.status >= 400 && error.status < 500)
        await closeAsShown(context, pending);
      // No private way after a relay that is not there: nothing reached the pool node.
      if (error instanceof NoPrivateTransportError && !error.relayMayHoldIt)
        await forget(context, pending);
      throw error;
    }
  } finally {
    // The pending record (if any) locks it from here.
    context.reserved.release([note.commitment]);
  }
}

/** The statement paying `requirements` from `note` against `checkpoint`. */
function spendStatement(
  context: WalletContext,
  note: StoredNote,
  requirements: PaymentRequirements,
  checkpoint: NonNullable<WalletState['checkpoint']>,
): SpendStatement {
  const { core, owner } = context;
  const expiry = expiryFor(Math.floor(context.clock() / 1000), requirements.maxTimeoutSeconds);
  const ctx = core.contextDigest(paymentContext(requirements, expiry));
  // The path's root is checked against the checkpoint once the proof's public inputs exist
  // (they hash it anyway; the sync already matched the tree's root to the checkpoint's).
  const path = context.tree.path(note.index, checkpoint.size);
  const changeValue = (BigInt(note.value) - BigInt(requirements.amount)).toString();
  const changeRho = changeRhoOf(core, context.state.sk, note.nullifier);
  const change = commitmentOf(core, changeValue, precommitmentOf(core, owner, changeRho));
  return { expiry, ctx, path, changeValue, change };
}

/** The pending record of a payment, written before anything of it leaves. */
function pendingRecord(
  context: WalletContext,
  note: StoredNote,
  requirements: PaymentRequirements,
  statement: SpendStatement,
): StoredPending {
  return {
    nullifier: note.nullifier,
    note: note.commitment,
    amount: requirements.amount,
    payTo: requirements.payTo,
    resourceId: resourceIdOf(requirements),
    change: statement.change,
    changeValue: statement.changeValue,
    expiry: statement.expiry,
    createdAt: context.clock(),
    status: 'pending',
  };
}

/**
 * Why a payment may not leave: its record was not written, its proof failed, or the proof proves
 * another payment than the one recorded (a damaged tree); `null` when it may.
 */
function failureOf(
  saved: PromiseSettledResult<void>,
  built: PromiseSettledResult<SpendProof>,
  note: StoredNote,
  change: DigestHex,
  checkpoint: NonNullable<WalletState['checkpoint']>,
): unknown {
  if (saved.status === 'rejected') return saved.reason;
  if (built.status === 'rejected') return built.reason;
  const proved = built.value.publicInputs;
  if (
    proved.nullifier !== note.nullifier ||
    proved.change !== change ||
    proved.root !== checkpoint.root
  )
    return new PoolMismatchError(
      `the proof does not prove the payment the wallet recorded against checkpoint ${checkpoint.seq}: the wallet's copy of the tree is damaged`,
    );
  return null;
}

/**
 * Closes `pending` as a payment that will not settle but showed its nullifier, and writes that if
 * it can.
 */
async function closeAsShown(context: WalletContext, pending: StoredPending): Promise<void> {
  pending.status = 'expired';
  await context.save().catch(() => undefined);
}

/** Forgets the record of a payment of which nothing left the wallet, and writes that if it can. */
async function forget(context: WalletContext, pending: StoredPending): Promise<void> {
  context.state.pending.splice(context.state.pending.indexOf(pending), 1);
  await context.save().catch(() => undefined);
}

/** See `Wallet.transfer`. */
export async function transfer(
  context: WalletContext,
  recipient: string,
  amount: bigint | string,
  options: { readonly note?: string | undefined },
): Promise<TransferReceipt> {
  const value = typeof amount === 'bigint' ? amount.toString() : amount;
  if (!isAmount(value))
    throw new UnpayableRequirementsError(
      `amount ${value.slice(0, 32)} is not decimal atomic units below 2^62`,
    );
  try {
    context.core.decodeAddress(recipient);
  } catch {
    throw new UnpayableRequirementsError('the recipient is not a shielded address');
  }
  const note =
    options.note === undefined
      ? coveringNote(context, BigInt(value))
      : ownNote(context, options.note);
  if (BigInt(note.value) < BigInt(value))
    throw new InsufficientFundsError(BigInt(value), BigInt(note.value), BigInt(note.value));
  const requirements = transferRequirements(context.network, recipient, value);
  // Reserved as it is chosen: no split started while the transport is found takes it.
  reserveNotes(context, [note], 'payment');
  let node: PoolNodeClient;
  try {
    // The transport first: in private-only mode without one, nothing is recorded or sent.
    node = await context.poolTransport.node('transfer');
  } catch (error) {
    context.reserved.release([note.commitment]);
    throw error;
  }
  const payload = await payFrom(context, note, requirements, 'inline', null);
  try {
    return await node.transfer({
      scheme: payload.scheme,
      network: payload.network,
      root: payload.root,
      nullifier: payload.nullifier,
      commitment: payload.commitment,
      proof: payload.proof!,
      amount: payload.amount,
      recipient: payload.recipient,
      expiry: payload.expiry,
    });
  } catch (error) {
    // A refusal means nothing was applied: forget the record. `duplicate_settlement` says the
    // note was spent (by another copy of this key, or this very transfer retried): the log
    // resolves the record. Without a clear answer the transfer may have settled: it stays.
    if (
      error instanceof PoolNodeError &&
      error.status >= 400 &&
      error.status < 500 &&
      error.code !== 'duplicate_settlement'
    ) {
      const at = context.state.pending.findIndex((p) => p.nullifier === payload.nullifier);
      if (at !== -1) context.state.pending.splice(at, 1);
      await context.save().catch(() => undefined);
    }
    throw error;
  }
}

/** The requirements a transfer through the pool node is bound to (the pool's transfer context). */
function transferRequirements(
  network: NetworkProfile,
  recipient: string,
  amount: string,
): PaymentRequirements {
  return {
    scheme: SCHEME,
    network: network.network,
    asset: network.asset,
    amount,
    payTo: recipient,
    // Half the bound: the transfer is sent at once, and the pool's clock may run ahead.
    maxTimeoutSeconds: TRANSFER_MAX_TIMEOUT_SECONDS / 2,
    extra: { resourceId: TRANSFER_RESOURCE_ID },
  } as PaymentRequirements;
}

/** The proof transports the requirements list (inline alone when they list none). */
function offered(requirements: PaymentRequirements): PaymentTransport[] {
  const listed = (requirements.extra as { proofTransports?: unknown } | undefined)?.proofTransports;
  return (Array.isArray(listed) ? listed : ['inline']).filter((t): t is PaymentTransport =>
    PROOF_TRANSPORTS.includes(t as PaymentTransport),
  );
}

/**
 * See `Wallet.transportFor`. The order that keeps the payer's address from the pool operator: a
 * hand-over through the merchant's relay, else inline where the merchant takes it, else a
 * hand-over through a proxy or directly (`pool-transport.ts`).
 */
export function transportFor(
  context: WalletContext,
  requirements: PaymentRequirements,
  merchant: Merchant | null = null,
): PaymentTransport {
  const listed = offered(requirements);
  if (context.transportPreference === 'inline' && listed.includes('inline')) return 'inline';
  if (listed.includes('reference') && merchant?.relay != null) return 'reference';
  if (listed.includes('inline')) return 'inline';
  return listed[0] ?? 'inline';
}

/**
 * See `Wallet.handOver`: through the merchant's relay when it has one, else through the wallet's
 * transport (`pool-transport.ts`). With `inlineAfterRelay`, a relay that does not take it leaves
 * the payment inline instead.
 */
export async function handOver(
  context: WalletContext,
  payload: PrivStarkPayload,
  requirements: PaymentRequirements,
  merchant: Merchant | null = null,
  inlineAfterRelay = false,
): Promise<PrivStarkPayload> {
  const core = context.core;
  if (payload.proof === undefined) return payload;
  const decoded = decodeProof(payload.proof);
  if (!decoded.ok) throw new UnpayableRequirementsError('the payment carries no readable proof');
  const payment = paymentContext(requirements, payload.expiry);
  const { reference } = core.proofReference(decoded.bytes, {
    root: payload.root as DigestHex,
    nullifier: payload.nullifier as DigestHex,
    change: payload.commitment as DigestHex,
    amount: payload.amount,
    ctx: core.contextDigest(payment),
  });
  const body = {
    scheme: payment.scheme,
    network: payment.network,
    asset: payment.asset,
    payTo: payment.payTo,
    amount: payment.amount,
    resourceId: payment.resourceId,
    expiry: payment.expiry,
    root: payload.root,
    nullifier: payload.nullifier,
    commitment: payload.commitment,
    // As bytes: sent as a frame, a quarter smaller than its base64 in JSON (`handover-frame.ts`).
    proof: decoded.bytes,
  };
  let answer = merchant?.relay ? await relayHandOver(merchant.relay, body) : null;
  if (answer === null || typeof answer === 'string') {
    if (answer !== null && inlineAfterRelay) return payload;
    const node = await nodeAfterRelay(context, merchant, answer);
    answer = await node.handOver(body);
  }
  if (answer.reference !== reference)
    throw new PoolMismatchError('the pool node answered another reference for this proof');
  const { proof: _inline, ...fields } = payload;
  return { ...fields, proofRef: reference };
}

/** The pool node's client for a hand-over the relay (if any) did not take. */
async function nodeAfterRelay(
  context: WalletContext,
  merchant: Merchant | null,
  miss: RelayMiss | null,
): Promise<PoolNodeClient> {
  try {
    return await context.poolTransport.node('hand-over', merchant?.origin);
  } catch (error) {
    if (error instanceof NoPrivateTransportError && miss === 'unclear')
      throw new NoPrivateTransportError('hand-over', true);
    throw error;
  }
}
