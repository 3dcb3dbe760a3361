// One send at a time per sending address (src/chain/send-lock.ts), on the shared node: six sends
// from one key at once, each through the lock, are all mined with six nonces in a row — as the
// relayer's and the watcher's sends are when one key holds both roles; the must-fail twin, the same
// six sends without the lock, read one pending nonce and the node refuses some of them.

import { parseEther } from 'viem';
import { describe, expect, it } from 'vitest';

import { withSendLock } from '../../src/chain/send-lock.js';
import { newAccount, walletOf } from '../../testkit/chain.js';
import { sharedChain } from './shared.js';

const SENDS = 6;

async function sendAtOnce(locked: boolean) {
  const chain = sharedChain();
  const account = await newAccount(chain);
  const client = walletOf(chain, account);
  const send = () =>
    client.sendTransaction({
      account,
      chain: client.chain,
      to: account.address,
      value: parseEther('0.001'),
    });
  const results = await Promise.allSettled(
    Array.from({ length: SENDS }, () => (locked ? withSendLock(account.address, send) : send())),
  );
  const nonce = await chain.public.getTransactionCount({ address: account.address });
  return { sent: results.filter((r) => r.status === 'fulfilled').length, nonce };
}

describe('one send at a time per sending address', () => {
  it('six sends at once through the lock: all mined, six nonces in a row', async () => {
    expect(await sendAtOnce(true)).toEqual({ sent: SENDS, nonce: SENDS });
  });

  it('must-fail twin: the same six without the lock read one nonce and some are refused', async () => {
    const { sent } = await sendAtOnce(false);
    expect(sent).toBeLessThan(SENDS);
  });
});
