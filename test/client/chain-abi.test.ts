// The wallet's chain module calls the escrow and its token through fragments of its own
// (src/client/chain-abi.ts, so that it never loads the pool node's generated artifacts): each
// function, event and error is one the compiled contracts have, with the same signature and
// selector. Must-fail twin: a fragment the contracts do not have is found.

import { type Abi, type AbiParameter, toEventSelector, toFunctionSelector } from 'viem';
import { describe, expect, it } from 'vitest';

import { privStarkEscrowAbi, testUsdcAbi } from '../../src/chain/contract-artifacts.js';
import { ESCROW_ABI, TOKEN_ABI } from '../../src/client/chain-abi.js';

/** A parameter's canonical type (tuples spelled out), with `indexed` for an event's topics. */
function typeOf(parameter: AbiParameter & { indexed?: boolean | undefined }): string {
  const components = (parameter as { components?: readonly AbiParameter[] }).components;
  const type = parameter.type.startsWith('tuple')
    ? `(${(components ?? []).map(typeOf).join(',')})${parameter.type.slice('tuple'.length)}`
    : parameter.type;
  return parameter.indexed ? `${type} indexed` : type;
}

/** An item's signature: kind, name, inputs and (functions) outputs and mutability. */
function toSignature(item: Abi[number]): string {
  if (item.type !== 'function' && item.type !== 'event' && item.type !== 'error') return item.type;
  const inputs = item.inputs.map(typeOf).join(',');
  if (item.type !== 'function') return `${item.type} ${item.name}(${inputs})`;
  const outputs = item.outputs.map(typeOf).join(',');
  return `function ${item.name}(${inputs}) ${item.stateMutability}${outputs ? ` returns (${outputs})` : ''}`;
}

/** The fragments of `fragments` the contract's ABI lacks, by signature. */
function missing(fragments: Abi, contract: Abi): string[] {
  const signatures = new Set(
    contract
      .filter((item) => item.type === 'function' || item.type === 'event' || item.type === 'error')
      .map(toSignature),
  );
  return fragments
    .filter(
      (item) => item.type !== 'constructor' && item.type !== 'fallback' && item.type !== 'receive',
    )
    .map(toSignature)
    .filter((signature) => !signatures.has(signature));
}

describe("the wallet's chain fragments", () => {
  it('are the compiled escrow’s and token’s, signature for signature', () => {
    expect(missing(ESCROW_ABI, privStarkEscrowAbi as Abi)).toEqual([]);
    expect(missing(TOKEN_ABI, testUsdcAbi as Abi)).toEqual([]);
    // And their selectors, for the calls and events the wallet makes and reads.
    const deposit = ESCROW_ABI.find((i) => i.type === 'function' && i.name === 'deposit')!;
    expect(toFunctionSelector(deposit as never)).toBe(
      toFunctionSelector(
        (privStarkEscrowAbi as Abi).find(
          (i) => i.type === 'function' && i.name === 'deposit',
        ) as never,
      ),
    );
    const paid = ESCROW_ABI.find((i) => i.type === 'event' && i.name === 'Paid')!;
    expect(toEventSelector(paid as never)).toBe(toEventSelector('Paid(bytes32,address,uint256)'));
  });

  it('must-fail twin: a fragment the contracts lack is found', () => {
    const wrong = [
      ...ESCROW_ABI,
      {
        type: 'function',
        name: 'deposit',
        stateMutability: 'nonpayable',
        inputs: [{ type: 'uint128' }],
        outputs: [],
      },
    ] as Abi;
    expect(missing(wrong, privStarkEscrowAbi as Abi)).toEqual([
      'function deposit(uint128) nonpayable',
    ]);
  });
});
