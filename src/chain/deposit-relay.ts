/**
 * @module The pool node's relayer (docs/chain.md, "Using it"): sends a wallet's signed gasless
 * deposit through the escrow's `depositWithAuthorization` — the escrow recomputes the EIP-3009 nonce
 * from `(amount, pre)` and pays `value − amount` to the sender, this relayer — and a depositor's
 * signed reclaim through `reclaimWithSignature`. It serves the pool's chain facts too (`GET /chain`),
 * read once at start.
 *
 * Nothing is sent that the chain would refuse: the fee is checked first, a ticket already deposited
 * is answered `deposit_exists`, and the call is simulated as the relayer before it is signed, its
 * revert mapped to a stable reason. Sends are one at a time (one nonce sequence). Nothing here logs
 * a key, a signature or a raw transaction.
 */

import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  getAddress,
  type Hex,
  parseEventLogs,
} from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';

import type {
  ChainFacts,
  DepositAuthorization,
  DepositRelay,
  ReclaimAuthorization,
  RelayReason,
  RelayResult,
  TokenDomain,
} from '../pool-node/deposit-relay.js';
import type { ChainBacking } from '../scheme/index.js';
import { privStarkEscrowAbi, testUsdcAbi } from './contract-artifacts.js';
import { gasLimitFor } from './gas-limit.js';
import type { ChainClients } from './rpc-client.js';

/** What the relayer logs through (pino's shape): transaction hashes and reasons, never a signature. */
export interface RelayLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** Options of {@link openDepositRelay}. */
export interface DepositRelayOptions {
  readonly clients: ChainClients;
  readonly backing: ChainBacking;
  /** The pool's network id and asset (`chain-network.ts`). */
  readonly network: string;
  readonly asset: string;
  /** The relayer's key; without one the pool serves its facts and relays nothing. */
  readonly relayer?: PrivateKeyAccount | undefined;
  /** Atomic units the relayer takes per deposit (default 0). */
  readonly fee?: bigint;
  /** The token's EIP-712 domain to advertise (default: the token's own `name()` and `version()`). */
  readonly tokenDomain?: TokenDomain | undefined;
  /** How long a relayed transaction is awaited before the route answers 202, ms (default 30 000). */
  readonly receiptTimeoutMs?: number;
  readonly log?: RelayLog | undefined;
}

/** Reads the facts once and returns the relayer (or, without a key, the facts alone). */
export async function openDepositRelay(options: DepositRelayOptions): Promise<DepositRelay> {
  const { clients, backing } = options;
  const escrow = getAddress(backing.escrow);
  const token = getAddress(backing.token);
  const read = (address: Address, abi: readonly unknown[], functionName: string) =>
    clients.public.readContract({ address, abi, functionName } as never) as Promise<unknown>;
  const [decimals, name, version, minDeposit, reclaimDelay] = await Promise.all([
    read(token, testUsdcAbi, 'decimals'),
    options.tokenDomain ? options.tokenDomain.name : read(token, testUsdcAbi, 'name'),
    options.tokenDomain ? options.tokenDomain.version : read(token, testUsdcAbi, 'version'),
    read(escrow, privStarkEscrowAbi, 'minDeposit'),
    read(escrow, privStarkEscrowAbi, 'reclaimDelay'),
  ]);
  const facts: ChainFacts = {
    chainId: backing.chainId,
    escrow,
    token,
    decimals: Number(decimals),
    tokenDomain: { name: String(name), version: String(version) },
    network: options.network,
    asset: options.asset,
    minDeposit: String(minDeposit),
    reclaimDelay: Number(reclaimDelay),
    relayer: options.relayer
      ? { address: options.relayer.address, fee: (options.fee ?? 0n).toString() }
      : null,
  };
  return new EscrowRelay(options, facts);
}

/** A revert's name or string, in short; `null` when the error is not a revert. */
function revertOf(error: unknown): string | null {
  if (!(error instanceof BaseError)) return null;
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (!(reverted instanceof ContractFunctionRevertedError)) return null;
  return (reverted.reason ?? reverted.data?.errorName ?? 'reverted').slice(0, 80);
}

/** The stable reason of a deposit's revert. */
function depositReason(revert: string): RelayReason {
  if (revert === 'DuplicateDeposit') return 'deposit_exists';
  if (/not yet valid|expired/i.test(revert)) return 'authorization_expired';
  if (/signature|used or canceled|payee/i.test(revert)) return 'authorization_invalid';
  return 'deposit_refused';
}

/** The escrow's relayer. */
class EscrowRelay implements DepositRelay {
  private readonly escrow: Address;
  private readonly fee: bigint;
  /** Sends one at a time: the relayer's nonces are one sequence. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly options: DepositRelayOptions,
    private readonly chainFacts: ChainFacts,
  ) {
    this.escrow = getAddress(options.backing.escrow);
    this.fee = options.fee ?? 0n;
  }

  facts(): ChainFacts {
    return this.chainFacts;
  }

  async deposit(a: DepositAuthorization): Promise<RelayResult> {
    const amount = BigInt(a.amount);
    const value = BigInt(a.value);
    if (value < amount + this.fee)
      return {
        ok: false,
        reason: 'relay_fee_too_low',
        detail: `the fee is ${this.fee} atomic units`,
      };
    if (BigInt(a.validBefore) <= BigInt(Math.floor(Date.now() / 1000)))
      return { ok: false, reason: 'authorization_expired' };
    const args = [
      getAddress(a.from),
      amount,
      a.pre as Hex,
      value,
      BigInt(a.validAfter),
      BigInt(a.validBefore),
      a.signature as Hex,
    ];
    return this.send('deposit', 'depositWithAuthorization', args, depositReason, async () => {
      const deposited = await this.options.clients.public.readContract({
        address: this.escrow,
        abi: privStarkEscrowAbi,
        functionName: 'isDeposited',
        args: [amount, a.pre as Hex],
      });
      return deposited ? 'deposit_exists' : null;
    });
  }

  async reclaim(a: ReclaimAuthorization): Promise<RelayResult> {
    const args = [BigInt(a.index), BigInt(a.deadline), a.signature as Hex];
    return this.send('reclaim', 'reclaimWithSignature', args, () => 'reclaim_refused');
  }

  /**
   * Checks (`precheck`), simulates as the relayer, signs and sends `functionName(args)` — one
   * send at a time — and awaits its receipt.
   */
  private send(
    kind: 'deposit' | 'reclaim',
    functionName: string,
    args: readonly unknown[],
    reasonOf: (revert: string) => RelayReason,
    precheck?: () => Promise<RelayReason | null>,
  ): Promise<RelayResult> {
    const run = async (): Promise<RelayResult> => {
      const relayer = this.options.relayer;
      if (!relayer) return { ok: false, reason: 'relay_unavailable', detail: 'no relayer key' };
      const { clients, backing } = this.options;
      let hash: Hex;
      try {
        const refused = await precheck?.();
        if (refused) return { ok: false, reason: refused };
        const call = {
          address: this.escrow,
          abi: privStarkEscrowAbi,
          functionName,
          args,
          account: relayer,
        } as never;
        const { request } = await clients.public.simulateContract(call);
        const gas = gasLimitFor(await clients.public.estimateContractGas(call));
        hash = await clients
          .wallet(relayer, backing.chainId)
          .writeContract({ ...(request as object), gas } as never);
      } catch (error) {
        const revert = revertOf(error);
        if (revert !== null) return { ok: false, reason: reasonOf(revert), detail: revert };
        this.options.log?.warn({ kind, error: errorName(error) }, 'relay could not send');
        return { ok: false, reason: 'relay_unavailable' };
      }
      this.options.log?.info({ kind, transaction: hash }, 'relayed');
      return this.outcome(kind, hash, reasonOf);
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** The relayed transaction's outcome: mined (with the deposit's index), reverted, or not yet. */
  private async outcome(
    kind: 'deposit' | 'reclaim',
    hash: Hex,
    reasonOf: (revert: string) => RelayReason,
  ): Promise<RelayResult> {
    let receipt: Awaited<ReturnType<ChainClients['public']['waitForTransactionReceipt']>>;
    try {
      receipt = await this.options.clients.public.waitForTransactionReceipt({
        hash,
        timeout: this.options.receiptTimeoutMs ?? 30_000,
        pollingInterval: 100,
      });
    } catch {
      return { ok: true, transaction: hash, mined: false };
    }
    // Simulated a moment ago: a revert now is a race (another relayer sent the same ticket).
    if (receipt.status !== 'success')
      return { ok: false, reason: reasonOf('reverted on chain'), detail: `transaction ${hash}` };
    if (kind === 'reclaim') return { ok: true, transaction: hash, mined: true };
    const [event] = parseEventLogs({
      abi: privStarkEscrowAbi,
      logs: receipt.logs,
      eventName: 'Deposited',
    });
    return {
      ok: true,
      transaction: hash,
      mined: true,
      ...(event ? { depositIndex: Number(event.args.index) } : {}),
    };
  }
}

/**
 * An error's class name and short message, never its data: long hex (a signature, a raw
 * transaction, calldata) is cut out.
 */
function errorName(error: unknown): string {
  if (!(error instanceof BaseError)) return error instanceof Error ? error.name : 'error';
  const short = error.shortMessage.replace(/0x[0-9a-fA-F]{41,}/g, '0x…').slice(0, 120);
  return `${error.name}: ${short}`;
}
