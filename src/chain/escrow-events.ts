/**
 * @module The escrow's deposit events — `Deposited`, `Accepted`, `Declined`, `Reclaimed` — read with
 * `eth_getLogs` over a block range and checked before anything is recorded: each log from the
 * escrow, inside the range asked, not removed, with a block hash, decoding against the escrow's ABI
 * with values in range. A log that fails any of these makes the whole page `rpc_malformed`: the
 * cursor stays, and the page is read again at the next poll.
 */

import {
  type Address,
  decodeEventLog,
  getAddress,
  type Hex,
  isAddressEqual,
  type PublicClient,
  toEventSelector,
} from 'viem';

import type { WatchEvent } from '../pool-node/deposit-source.js';
import { ChainError, chainErrorOf } from './chain-errors.js';
import { privStarkEscrowAbi } from './contract-artifacts.js';

type EventName = 'Deposited' | 'Accepted' | 'Declined' | 'Reclaimed';
const EVENT_NAMES: readonly EventName[] = ['Deposited', 'Accepted', 'Declined', 'Reclaimed'];

const EVENTS = privStarkEscrowAbi.filter(
  (item) => item.type === 'event' && EVENT_NAMES.includes(item.name as EventName),
);

/** The topics of the four events: the `topics[0]` filter of every page. */
export const DEPOSIT_EVENT_TOPICS: readonly Hex[] = EVENTS.map((item) =>
  toEventSelector(item as Parameters<typeof toEventSelector>[0]),
);

/** A log as the RPC returns it (every field unchecked). */
interface RawLog {
  address?: unknown;
  topics?: unknown;
  data?: unknown;
  blockNumber?: unknown;
  blockHash?: unknown;
  logIndex?: unknown;
  removed?: unknown;
}

const HASH = /^0x[0-9a-fA-F]{64}$/;
const QUANTITY = /^0x(0|[1-9a-fA-F][0-9a-fA-F]{0,15})$/;

function malformed(reason: string): ChainError {
  return new ChainError('rpc_malformed', `eth_getLogs answered a malformed log: ${reason}`);
}

/** The log's block number, checked to be a quantity inside `[from, to]`. */
function blockOf(log: RawLog, from: bigint, to: bigint): number {
  if (typeof log.blockNumber !== 'string' || !QUANTITY.test(log.blockNumber))
    throw malformed('no block number');
  const block = BigInt(log.blockNumber);
  if (block < from || block > to) throw malformed(`block ${block} outside ${from}..${to}`);
  return Number(block);
}

/** One raw log as a {@link WatchEvent}, or a `rpc_malformed` error saying what is wrong with it. */
export function eventOf(log: RawLog, escrow: Address, from: bigint, to: bigint): WatchEvent {
  if (typeof log.address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(log.address))
    throw malformed('no address');
  if (!isAddressEqual(log.address as Address, escrow)) throw malformed('not from the escrow');
  if (log.removed === true) throw malformed('a removed log');
  const block = blockOf(log, from, to);
  if (typeof log.blockHash !== 'string' || !HASH.test(log.blockHash))
    throw malformed('no block hash');
  if (!Array.isArray(log.topics) || !log.topics.every((t) => typeof t === 'string' && HASH.test(t)))
    throw malformed('bad topics');
  if (typeof log.data !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(log.data))
    throw malformed('bad data');
  let decoded: { eventName: string; args: Record<string, unknown> };
  try {
    decoded = decodeEventLog({
      abi: EVENTS,
      topics: log.topics as [Hex, ...Hex[]],
      data: log.data as Hex,
      strict: true,
    }) as unknown as { eventName: string; args: Record<string, unknown> };
  } catch {
    throw malformed('does not decode as an escrow event');
  }
  const index = decoded.args.index as bigint;
  if (index > BigInt(Number.MAX_SAFE_INTEGER)) throw malformed('deposit index out of range');
  const base = { index: Number(index), block, blockHash: log.blockHash.toLowerCase() };
  switch (decoded.eventName) {
    case 'Deposited': {
      const amount = decoded.args.amount as bigint;
      const pre = decoded.args.pre as Hex;
      return {
        kind: 'deposited',
        ...base,
        depositor: getAddress(decoded.args.depositor as string),
        amount: amount.toString(),
        pre: pre.toLowerCase(),
      };
    }
    case 'Accepted':
      return { kind: 'accepted', ...base };
    case 'Declined':
      return { kind: 'declined', ...base };
    default:
      return { kind: 'reclaimed', ...base };
  }
}

/**
 * The escrow's deposit events in blocks `from..to`, in chain order.
 * @throws ChainError `rpc_unreachable`, `rpc_error` (e.g. a range the RPC will not serve),
 *   `rpc_malformed`
 */
export async function readEscrowEvents(
  client: PublicClient,
  escrow: Address,
  from: number,
  to: number,
): Promise<WatchEvent[]> {
  let logs: unknown;
  try {
    logs = await client.request({
      method: 'eth_getLogs',
      params: [
        {
          address: escrow,
          topics: [[...DEPOSIT_EVENT_TOPICS]],
          fromBlock: `0x${from.toString(16)}`,
          toBlock: `0x${to.toString(16)}`,
        },
      ],
    });
  } catch (error) {
    throw chainErrorOf(error, `eth_getLogs ${from}..${to}`);
  }
  if (!Array.isArray(logs)) throw malformed('not a list');
  const events = (logs as RawLog[]).map((log) => ({
    event: eventOf(log, escrow, BigInt(from), BigInt(to)),
    logIndex: typeof log.logIndex === 'string' ? Number.parseInt(log.logIndex, 16) : 0,
  }));
  // The RPC's order is the chain's; sorted anyway, so a shuffled answer records the same.
  events.sort((a, b) => a.event.block - b.event.block || a.logIndex - b.logIndex);
  return events.map((e) => e.event);
}
