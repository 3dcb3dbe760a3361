// The network and asset of a chain-backed pool (src/scheme/chain-network.ts): the network id is
// `shielded:` + the first 16 bytes of keccak256(abi.encode(uint256 chainId, address escrow)), the
// asset the token's CAIP-19 id. A fixed vector (computed once with viem's ABI encoder, written
// into docs/chain.md), a cross-check against viem on random inputs, and refusals.

import { encodeAbiParameters, getAddress, keccak256 } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';

import {
  chainAssetId,
  chainNetworkId,
  chainNetworkProfile,
  DEVNET_NETWORK,
} from '../../src/scheme/index.js';

const ESCROW = '0x1111111111111111111111111111111111111111';

describe('chainNetworkId', () => {
  it('matches the documented vector', () => {
    // keccak256(abi.encode(uint256(8453), address(0x1111…1111))) =
    // 0x076db7eb00dc66f38c605ef42616f63b61fc57a7452d717f62b02c0d086f4b85
    expect(chainNetworkId(8453, ESCROW)).toBe('shielded:076db7eb00dc66f38c605ef42616f63b');
  });

  it('is viem’s abi.encode + keccak256, whatever the address case', () => {
    for (let i = 0; i < 20; i++) {
      const escrow = privateKeyToAccount(generatePrivateKey()).address;
      const chainId = 1 + Math.floor(Math.random() * 2 ** 40);
      const digest = keccak256(
        encodeAbiParameters([{ type: 'uint256' }, { type: 'address' }], [BigInt(chainId), escrow]),
      );
      const id = `shielded:${digest.slice(2, 34)}`;
      expect(chainNetworkId(chainId, escrow)).toBe(id);
      expect(chainNetworkId(chainId, escrow.toLowerCase())).toBe(id);
    }
  });

  it('differs with the chain and the escrow, and from the devnet', () => {
    const base = chainNetworkId(8453, ESCROW);
    expect(chainNetworkId(84532, ESCROW)).not.toBe(base);
    expect(chainNetworkId(8453, '0x1111111111111111111111111111111111111112')).not.toBe(base);
    expect(base).not.toBe(DEVNET_NETWORK.network);
    // A CAIP-2 id: namespace and a reference of at most 32 characters.
    expect(base).toMatch(/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/);
  });

  it('refuses a bad chain id or address', () => {
    for (const chainId of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 2, Number.NaN])
      expect(() => chainNetworkId(chainId, ESCROW)).toThrow(RangeError);
    for (const escrow of [
      '',
      '0x11',
      `${ESCROW}11`,
      ESCROW.replace('0x', ''),
      `0x${'g'.repeat(40)}`,
    ])
      expect(() => chainNetworkId(8453, escrow)).toThrow(RangeError);
  });
});

describe('chainAssetId and chainNetworkProfile', () => {
  it('the token’s CAIP-19 id, lowercase', () => {
    const usdc = getAddress('0x833589fcd6edb6e08f4c7c32d4f71b54bda02913');
    expect(chainAssetId(8453, usdc)).toBe(
      'eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
    );
    const profile = chainNetworkProfile({ chainId: 8453, escrow: ESCROW, token: usdc }, 6);
    expect(profile).toEqual({
      network: 'shielded:076db7eb00dc66f38c605ef42616f63b',
      asset: 'eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
      decimals: 6,
      chain: { chainId: 8453, escrow: ESCROW, token: usdc },
    });
  });

  it('refuses an asset id longer than a context field, and bad decimals', () => {
    expect(() => chainAssetId(10 ** 15, ESCROW)).toThrow(/longer than 64 bytes/);
    expect(() => chainNetworkProfile({ chainId: 1, escrow: ESCROW, token: ESCROW }, 37)).toThrow(
      RangeError,
    );
  });
});

describe("a chain pool's payment requirements", () => {
  it('name the chain, escrow and token in extra.chain; the devnet’s do not', async () => {
    const { PrivStarkSchemeServer } = await import('../../src/server/index.js');
    const token = getAddress('0x833589fcd6edb6e08f4c7c32d4f71b54bda02913');
    const profile = chainNetworkProfile({ chainId: 8453, escrow: ESCROW, token }, 6);
    const server = new PrivStarkSchemeServer({ networks: [profile, DEVNET_NETWORK] });
    const kind = {
      x402Version: 2,
      scheme: 'priv-stark/v1',
      extra: { proofTransports: ['reference'] },
    };
    const requirements = (network: string, asset: string) => ({
      scheme: 'priv-stark/v1',
      network: network as `${string}:${string}`,
      asset,
      amount: '10000',
      payTo: 'x',
      maxTimeoutSeconds: 60,
      extra: { resourceId: 'GET /a' },
    });
    const chain = await server.enhancePaymentRequirements(
      requirements(profile.network, profile.asset),
      { ...kind, network: profile.network as `${string}:${string}` },
      [],
    );
    expect(chain.extra).toEqual({
      resourceId: 'GET /a',
      proofTransports: ['reference'],
      // The merchant's hand-over relay, advertised by default (issue 25, part 1).
      handOverRelay: '/priv-stark/proofs',
      chain: { chainId: 8453, escrow: ESCROW, token },
    });
    expect(await server.parsePrice('0.01', profile.network as `${string}:${string}`)).toEqual({
      asset: profile.asset,
      amount: '10000',
    });
    const devnet = await server.enhancePaymentRequirements(
      requirements(DEVNET_NETWORK.network, DEVNET_NETWORK.asset),
      { ...kind, network: DEVNET_NETWORK.network as `${string}:${string}` },
      [],
    );
    expect(devnet.extra).not.toHaveProperty('chain');
  });
});
