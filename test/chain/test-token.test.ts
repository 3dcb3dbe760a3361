// The test token reproduces what the escrow and the pool node meet in USDC (FiatTokenV2_2):
// every revert reason, each beside the call that passes, on a node of its own (the validity
// window is tested to the second, so this suite sets block times).

import { type Address, domainSeparator, type Hex, keccak256, toHex, zeroAddress } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { testUsdcAbi } from '../../src/chain/contract-artifacts.js';
import { type LocalNode, startLocalNode } from '../../src/chain/local-node.js';
import {
  type Authorization,
  type Chain,
  connect,
  deploy,
  deployTestUsdc,
  newAccount,
  now,
  revertOf,
  send,
  signAuthorization,
  signCancel,
  testArtifact,
  USDC_DOMAIN,
  vrs,
} from '../../testkit/chain.js';

let node: LocalNode;
let chain: Chain;
let owner: PrivateKeyAccount;
let alice: PrivateKeyAccount;
let bob: PrivateKeyAccount;
let carol: PrivateKeyAccount;
let token: Address;

beforeAll(async () => {
  node = await startLocalNode({ accounts: 1 });
  chain = connect(node.url);
  owner = await newAccount(chain);
  alice = await newAccount(chain);
  bob = await newAccount(chain);
  carol = await newAccount(chain);
  token = await deployTestUsdc(chain, owner);
  await call(owner, 'mint', [alice.address, 1_000_000n]);
});

afterAll(() => node?.stop());

function call(account: PrivateKeyAccount, functionName: string, args: readonly unknown[] = []) {
  return send(chain, account, { address: token, abi: testUsdcAbi, functionName, args });
}

function read<T>(functionName: string, args: readonly unknown[] = []): Promise<T> {
  return chain.public.readContract({
    address: token,
    abi: testUsdcAbi,
    functionName,
    args,
  } as never) as Promise<T>;
}

const balance = (who: Address) => read<bigint>('balanceOf', [who]);

/** Expects `promise` to revert with FiatToken's revert string `reason`. */
async function refused(promise: Promise<unknown>, reason: string) {
  expect(await revertOf(promise)).toEqual({ name: 'Error', args: [reason] });
}

let nonceCounter = 0;
const freshNonce = (): Hex => keccak256(toHex(`nonce-${nonceCounter++}-${Math.random()}`));

/** An authorization from `from` to `to`, valid from a minute ago for an hour. */
async function authorization(from: Address, to: Address, value: bigint): Promise<Authorization> {
  const t = await now(chain);
  return {
    token,
    from,
    to,
    value,
    validAfter: t - 60n,
    validBefore: t + 3600n,
    nonce: freshNonce(),
  };
}

const args = (a: Authorization) => [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce];
const withVrs = (a: Authorization, signature: Hex) => {
  const { v, r, s } = vrs(signature);
  return [...args(a), v, r, s];
};

describe('TestUSDC: the ERC-20 and its owner', () => {
  it("has 6 decimals, Base's EIP-712 name and version, and the DOMAIN_SEPARATOR a wallet computes", async () => {
    expect(await read('decimals')).toBe(6);
    expect(await read('name')).toBe(USDC_DOMAIN.name);
    expect(await read('version')).toBe(USDC_DOMAIN.version);
    expect(await read('DOMAIN_SEPARATOR')).toBe(
      domainSeparator({
        domain: { ...USDC_DOMAIN, chainId: chain.chainId, verifyingContract: token },
      }),
    );
    // Must-fail twin: another version is another domain.
    expect(await read('DOMAIN_SEPARATOR')).not.toBe(
      domainSeparator({
        domain: { ...USDC_DOMAIN, version: '1', chainId: chain.chainId, verifyingContract: token },
      }),
    );
  });

  it('mints by its owner only, to an address, more than nothing', async () => {
    expect(await revertOf(call(alice, 'mint', [alice.address, 1n]))).toEqual({
      name: 'OwnableUnauthorizedAccount',
      args: [alice.address],
    });
    await refused(call(owner, 'mint', [zeroAddress, 1n]), 'FiatToken: mint to the zero address');
    await refused(
      call(owner, 'mint', [bob.address, 0n]),
      'FiatToken: mint amount not greater than 0',
    );
    await call(owner, 'mint', [bob.address, 1n]);
    expect(await balance(bob.address)).toBe(1n);
  });

  it('transfers within the balance, never to the zero address', async () => {
    const held = await balance(alice.address);
    await refused(
      call(alice, 'transfer', [bob.address, held + 1n]),
      'ERC20: transfer amount exceeds balance',
    );
    await refused(
      call(alice, 'transfer', [zeroAddress, 1n]),
      'ERC20: transfer to the zero address',
    );
    const before = await balance(bob.address);
    await call(alice, 'transfer', [bob.address, 5n]);
    expect(await balance(bob.address)).toBe(before + 5n);
  });

  it('transferFrom within the allowance, never from the zero address; approve never to it', async () => {
    await refused(call(alice, 'approve', [zeroAddress, 1n]), 'ERC20: approve to the zero address');
    await call(alice, 'approve', [carol.address, 10n]);
    await refused(
      call(carol, 'transferFrom', [alice.address, carol.address, 11n]),
      'ERC20: transfer amount exceeds allowance',
    );
    await refused(
      call(carol, 'transferFrom', [zeroAddress, carol.address, 0n]),
      'ERC20: transfer from the zero address',
    );
    await call(carol, 'transferFrom', [alice.address, carol.address, 10n]);
    expect(await read('allowance', [alice.address, carol.address])).toBe(0n);
  });
});

describe('TestUSDC: pause', () => {
  it('stops transfers, approvals, authorizations, cancellations and mints; unpause lets them go on', async () => {
    expect(await revertOf(call(alice, 'pause'))).toMatchObject({
      name: 'OwnableUnauthorizedAccount',
    });
    const a = await authorization(alice.address, bob.address, 3n);
    const signature = await signAuthorization(chain, alice, a, 'TransferWithAuthorization');
    const cancelled = freshNonce();
    const cancel = await signCancel(chain, alice, token, cancelled);
    await call(alice, 'approve', [bob.address, 1n]);
    await call(owner, 'pause');
    expect(await read('paused')).toBe(true);
    const attempts: [PrivateKeyAccount, string, readonly unknown[]][] = [
      [alice, 'transfer', [bob.address, 1n]],
      [bob, 'transferFrom', [alice.address, bob.address, 1n]],
      [alice, 'approve', [bob.address, 2n]],
      [owner, 'mint', [bob.address, 1n]],
      [carol, 'transferWithAuthorization', [...args(a), signature]],
      [carol, 'cancelAuthorization', [alice.address, cancelled, cancel]],
    ];
    for (const [who, name, list] of attempts)
      await refused(call(who, name, list), 'Pausable: paused');
    await call(owner, 'unpause');
    for (const [who, name, list] of attempts) await call(who, name, list);
  });
});

describe('TestUSDC: blacklist', () => {
  it('a blacklisted account can neither send, receive, approve, be approved nor authorize', async () => {
    const mallory = await newAccount(chain);
    await call(owner, 'mint', [mallory.address, 100n]);
    await call(alice, 'approve', [mallory.address, 5n]);
    await call(mallory, 'approve', [alice.address, 5n]);
    expect(await revertOf(call(alice, 'blacklist', [mallory.address]))).toMatchObject({
      name: 'OwnableUnauthorizedAccount',
    });
    await call(owner, 'blacklist', [mallory.address]);
    expect(await read('isBlacklisted', [mallory.address])).toBe(true);
    const out = await authorization(mallory.address, bob.address, 1n);
    const outSigned = await signAuthorization(chain, mallory, out, 'TransferWithAuthorization');
    const into = await authorization(alice.address, mallory.address, 1n);
    const intoSigned = await signAuthorization(chain, alice, into);
    const attempts: [PrivateKeyAccount, string, readonly unknown[]][] = [
      [mallory, 'transfer', [bob.address, 1n]],
      [alice, 'transfer', [mallory.address, 1n]],
      [mallory, 'approve', [bob.address, 1n]],
      [alice, 'approve', [mallory.address, 1n]],
      [mallory, 'transferFrom', [alice.address, bob.address, 1n]],
      [alice, 'transferFrom', [mallory.address, alice.address, 1n]],
      [bob, 'transferWithAuthorization', [...args(out), outSigned]],
      [mallory, 'receiveWithAuthorization', [...args(into), intoSigned]],
    ];
    for (const [who, name, list] of attempts)
      await refused(call(who, name, list), 'Blacklistable: account is blacklisted');
    await call(owner, 'unBlacklist', [mallory.address]);
    for (const [who, name, list] of attempts) await call(who, name, list);
  });
});

describe('TestUSDC: EIP-3009', () => {
  it('transferWithAuthorization: anyone submits it, in both forms; the nonce is then spent', async () => {
    for (const form of ['bytes', 'vrs'] as const) {
      const a = await authorization(alice.address, bob.address, 7n);
      const signature = await signAuthorization(chain, alice, a, 'TransferWithAuthorization');
      const list = form === 'bytes' ? [...args(a), signature] : withVrs(a, signature);
      expect(await read('authorizationState', [alice.address, a.nonce])).toBe(false);
      const before = await balance(bob.address);
      await call(carol, 'transferWithAuthorization', list);
      expect(await balance(bob.address)).toBe(before + 7n);
      expect(await read('authorizationState', [alice.address, a.nonce])).toBe(true);
      await refused(
        call(carol, 'transferWithAuthorization', list),
        'FiatTokenV2: authorization is used or canceled',
      );
    }
  });

  it('receiveWithAuthorization: only the payee may submit it, in both forms', async () => {
    for (const form of ['bytes', 'vrs'] as const) {
      const a = await authorization(alice.address, bob.address, 4n);
      const signature = await signAuthorization(chain, alice, a);
      const list = form === 'bytes' ? [...args(a), signature] : withVrs(a, signature);
      await refused(
        call(carol, 'receiveWithAuthorization', list),
        'FiatTokenV2: caller must be the payee',
      );
      const before = await balance(bob.address);
      await call(bob, 'receiveWithAuthorization', list);
      expect(await balance(bob.address)).toBe(before + 4n);
    }
  });

  it('the validity window is strict: validAfter < block time < validBefore', async () => {
    const t = (await now(chain)) + 100n;
    const a = {
      ...(await authorization(alice.address, bob.address, 1n)),
      validAfter: t,
      validBefore: t + 10n,
    };
    const signature = await signAuthorization(chain, alice, a);
    const at = async (time: bigint) => {
      await chain.test.setNextBlockTimestamp({ timestamp: time });
      return call(bob, 'receiveWithAuthorization', [...args(a), signature]);
    };
    await refused(at(t), 'FiatTokenV2: authorization is not yet valid');
    await at(t + 1n);
    const b = { ...a, nonce: freshNonce() };
    const late = await signAuthorization(chain, alice, b);
    await chain.test.setNextBlockTimestamp({ timestamp: t + 10n });
    await refused(
      call(bob, 'receiveWithAuthorization', [...args(b), late]),
      'FiatTokenV2: authorization is expired',
    );
    // Twin: a second before validBefore it passes.
    const c = { ...b, nonce: freshNonce(), validBefore: t + 11n };
    await chain.test.setNextBlockTimestamp({ timestamp: t + 10n });
    await call(bob, 'receiveWithAuthorization', [
      ...args(c),
      await signAuthorization(chain, alice, c),
    ]);
  });

  it('nonces are per authorizer: the same nonce of two authorizers are two authorizations', async () => {
    await call(owner, 'mint', [carol.address, 10n]);
    const nonce = freshNonce();
    for (const from of [alice, carol]) {
      const a = { ...(await authorization(from.address, bob.address, 2n)), nonce };
      await call(bob, 'receiveWithAuthorization', [
        ...args(a),
        await signAuthorization(chain, from, a),
      ]);
      expect(await read('authorizationState', [from.address, nonce])).toBe(true);
    }
  });

  it('cancelAuthorization: an unused nonce, with its authorizer signature, in both forms', async () => {
    for (const form of ['bytes', 'vrs'] as const) {
      const a = await authorization(alice.address, bob.address, 1n);
      const cancel = await signCancel(chain, alice, token, a.nonce);
      const { v, r, s } = vrs(cancel);
      const cancelArgs =
        form === 'bytes' ? [alice.address, a.nonce, cancel] : [alice.address, a.nonce, v, r, s];
      // Another key's cancellation is not the authorizer's.
      await refused(
        call(carol, 'cancelAuthorization', [
          alice.address,
          a.nonce,
          await signCancel(chain, carol, token, a.nonce),
        ]),
        'FiatTokenV2: invalid signature',
      );
      await call(carol, 'cancelAuthorization', cancelArgs);
      expect(await read('authorizationState', [alice.address, a.nonce])).toBe(true);
      await refused(
        call(bob, 'receiveWithAuthorization', [
          ...args(a),
          await signAuthorization(chain, alice, a),
        ]),
        'FiatTokenV2: authorization is used or canceled',
      );
      await refused(
        call(carol, 'cancelAuthorization', cancelArgs),
        'FiatTokenV2: authorization is used or canceled',
      );
    }
  });

  it('refuses a signature by another key, of another value, or under another domain', async () => {
    const a = await authorization(alice.address, bob.address, 3n);
    const wrong = [
      await signAuthorization(chain, carol, a),
      await signAuthorization(chain, alice, { ...a, value: 4n }),
      await signAuthorization(chain, alice, a, 'ReceiveWithAuthorization', {
        name: 'USD Coin',
        version: '1',
      }),
      await signAuthorization(chain, alice, a, 'TransferWithAuthorization'),
    ];
    for (const signature of wrong)
      await refused(
        call(bob, 'receiveWithAuthorization', [...args(a), signature]),
        'FiatTokenV2: invalid signature',
      );
    await call(bob, 'receiveWithAuthorization', [
      ...args(a),
      await signAuthorization(chain, alice, a),
    ]);
  });

  it('an ERC-1271 account authorizes with its owner key (bytes form)', async () => {
    const account = testArtifact('TestSmartAccount');
    const wallet = await deploy(chain, alice, { ...account, args: [alice.address] });
    await call(owner, 'mint', [wallet, 50n]);
    const a = await authorization(wallet, bob.address, 50n);
    await refused(
      call(bob, 'receiveWithAuthorization', [...args(a), await signAuthorization(chain, carol, a)]),
      'FiatTokenV2: invalid signature',
    );
    await call(bob, 'receiveWithAuthorization', [
      ...args(a),
      await signAuthorization(chain, alice, a),
    ]);
    expect(await balance(wallet)).toBe(0n);
  });
});
