/**
 * @module The network and asset of a pool backed by an escrow on an EVM chain (docs/chain.md,
 * "Binding"). Its network id is `shielded:` followed by the first 16 bytes, as 32 lowercase hex
 * digits, of `keccak256(abi.encode(uint256 chainId, address escrow))` — 64 bytes: the chain id
 * big-endian in 32 bytes, then the escrow's 20 bytes left-padded with 12 zero bytes; its asset is
 * the token's CAIP-19 id `eip155:<chainId>/erc20:<token, lowercase>`. Both enter every payment's
 * context digest, so a proof made for the devnet pool, another chain or another escrow never
 * verifies for this one, and the reverse.
 */

import { keccak_256 } from '@noble/hashes/sha3';

import { type ChainBacking, CONTEXT_FIELD_MAX_BYTES, type NetworkProfile } from './profile.js';

/** A network profile of a chain-backed pool: its network, asset and decimals, and what backs it. */
export interface ChainNetworkProfile extends NetworkProfile {
  readonly chain: ChainBacking;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function checkChainId(chainId: number): void {
  if (!Number.isSafeInteger(chainId) || chainId <= 0)
    throw new RangeError(`"chainId" expected a positive safe integer, got ${String(chainId)}`);
}

function checkAddress(name: string, address: string): void {
  if (typeof address !== 'string' || !ADDRESS.test(address))
    throw new RangeError(
      `"${name}" expected 0x and 40 hex digits, got ${String(address).slice(0, 50)}`,
    );
}

/**
 * The network id of the pool behind `escrow` on chain `chainId`.
 * @throws RangeError for a chain id that is not a positive safe integer, or a malformed address
 * @example
 * chainNetworkId(8453, '0x…') // 'shielded:3f2a…' (32 hex digits)
 */
export function chainNetworkId(chainId: number, escrow: string): string {
  checkChainId(chainId);
  checkAddress('escrow', escrow);
  const encoded = new Uint8Array(64);
  let id = BigInt(chainId);
  for (let i = 31; i >= 0 && id > 0n; i--) {
    encoded[i] = Number(id & 0xffn);
    id >>= 8n;
  }
  for (let i = 0; i < 20; i++)
    encoded[44 + i] = Number.parseInt(escrow.slice(2 + 2 * i, 4 + 2 * i), 16);
  const digest = keccak_256(encoded);
  let hex = '';
  // Browsers too (the wallet's scheme): no Buffer.
  for (const byte of digest.subarray(0, 16)) hex += byte.toString(16).padStart(2, '0');
  return `shielded:${hex}`;
}

/**
 * The CAIP-19 asset id of ERC-20 `token` on chain `chainId`, the address in lowercase.
 * @throws RangeError for a bad chain id or address, or an id longer than a context's asset field
 */
export function chainAssetId(chainId: number, token: string): string {
  checkChainId(chainId);
  checkAddress('token', token);
  const asset = `eip155:${chainId}/erc20:${token.toLowerCase()}`;
  if (asset.length > CONTEXT_FIELD_MAX_BYTES.asset)
    throw new RangeError(
      `the asset id of chain ${chainId} is longer than ${CONTEXT_FIELD_MAX_BYTES.asset} bytes`,
    );
  return asset;
}

/**
 * The network profile of the pool `backing` describes, its asset having `decimals` (the token's).
 * @throws RangeError as {@link chainNetworkId} and {@link chainAssetId}, or for decimals outside 0..36
 */
export function chainNetworkProfile(backing: ChainBacking, decimals: number): ChainNetworkProfile {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 36)
    throw new RangeError(`"decimals" expected an integer in 0..36, got ${String(decimals)}`);
  return {
    network: chainNetworkId(backing.chainId, backing.escrow),
    asset: chainAssetId(backing.chainId, backing.token),
    decimals,
    chain: { chainId: backing.chainId, escrow: backing.escrow, token: backing.token },
  };
}
