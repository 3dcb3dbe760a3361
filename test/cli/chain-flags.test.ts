// The chain flags of `start` and `pool serve`: flags over the environment, the defaults
// (10 confirmations), repeatable key files, and usage errors for chain flags without --chain-rpc
// and --escrow or values of the wrong shape — all before anything is read or started.

import { describe, expect, it } from 'vitest';

import { chainConfig } from '../../src/cli/chain-flags.js';
import { startConfig, UsageError } from '../../src/cli/start.js';

const ESCROW = '0x1111111111111111111111111111111111111111';

describe('chain flags', () => {
  it('are off without --chain-rpc and --escrow: the devnet pool', () => {
    expect(startConfig([], {}).chain).toBeUndefined();
  });

  it('read flags over the environment, with 10 confirmations by default', () => {
    const env = {
      CHAIN_RPC_URL: 'http://127.0.0.1:8545',
      ESCROW_ADDRESS: ESCROW,
      OPERATOR_KEY_FILE: '/keys/all, payout=/keys/payout',
      CHAIN_CONFIRMATIONS: 'safe',
      CHAIN_MIN_GAS_BALANCE: '1000',
      CHAIN_POLL_INTERVAL_MS: '500',
    };
    expect(startConfig([], env).chain).toEqual({
      rpcUrl: 'http://127.0.0.1:8545',
      escrow: ESCROW,
      chainId: undefined,
      token: undefined,
      deployBlock: undefined,
      keyFiles: ['/keys/all', 'payout=/keys/payout'],
      finality: { tag: 'safe' },
      denyList: undefined,
      minGasBalance: 1000n,
      pollIntervalMs: 500,
      watcherLeaseTtlMs: undefined,
    });
    const flags = startConfig(
      [
        '--chain-rpc',
        'https://base.example/rpc',
        '--escrow',
        ESCROW,
        '--operator-key-file',
        'acceptor=/a',
        '--operator-key-file',
        'payout=/p',
        '--deny-list',
        '/deny',
        '--chain-id',
        '8453',
        '--deploy-block',
        '123',
        '--relayer-fee',
        '5000',
      ],
      env,
    ).chain;
    expect(flags).toMatchObject({
      rpcUrl: 'https://base.example/rpc',
      keyFiles: ['acceptor=/a', 'payout=/p'],
      finality: { tag: 'safe' },
      denyList: '/deny',
      chainId: 8453,
      deployBlock: 123,
      relayerFee: 5000n,
    });
    expect(startConfig([], { ...env, RELAYER_FEE: '7' }).chain?.relayerFee).toBe(7n);
    expect(chainConfig({ 'chain-rpc': 'http://x', escrow: ESCROW }, {})?.finality).toEqual({
      confirmations: 10,
    });
  });

  it('refuse chain flags without both --chain-rpc and --escrow, and malformed values', () => {
    const bad: [string[], Record<string, string>][] = [
      [['--chain-rpc', 'http://x'], {}],
      [['--escrow', ESCROW], {}],
      [['--confirmations', '3'], {}],
      [['--operator-key-file', '/k'], {}],
      [['--chain-rpc', 'ftp://x', '--escrow', ESCROW], {}],
      [['--chain-rpc', 'http://x', '--escrow', '0x1234'], {}],
      [['--chain-rpc', 'http://x', '--escrow', ESCROW, '--confirmations', '0'], {}],
      [['--chain-rpc', 'http://x', '--escrow', ESCROW, '--confirmations', 'latest'], {}],
      [['--chain-rpc', 'http://x', '--escrow', ESCROW, '--chain-id', '0'], {}],
      [['--chain-rpc', 'http://x', '--escrow', ESCROW, '--token', 'usdc'], {}],
      [['--chain-rpc', 'http://x', '--escrow', ESCROW], { CHAIN_MIN_GAS_BALANCE: '1e18' }],
      [['--relayer-fee', '5'], {}],
      [['--chain-rpc', 'http://x', '--escrow', ESCROW, '--relayer-fee', '0.5'], {}],
      [['--chain-rpc', 'http://x', '--escrow', ESCROW, '--relayer-fee', '-1'], {}],
    ];
    for (const [argv, env] of bad)
      expect(() => startConfig(argv, env), argv.join(' ')).toThrow(UsageError);
  });
});
