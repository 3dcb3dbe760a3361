// The per-process rate of merges and splits (TransitionRate, mcp/note-transitions.ts) on a clock
// the test moves: a slot is taken before anything is sent, given back when nothing was sent or the
// wallet refused, kept when a transition may have left; the window rolls after a minute.

import { describe, expect, it } from 'vitest';

import { WalletError } from '../../src/client/index.js';
import { ToolError } from '../../src/mcp/errors.js';
import { TransitionRate } from '../../src/mcp/note-transitions.js';

/** A merge or split that is sent and answered. */
const sent = (rate: TransitionRate) => rate.inSlot((send) => send(async () => 'sent'));

describe('TransitionRate', () => {
  it('refuses a limit that is not a whole number, 0 or more', () => {
    for (const limit of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => new TransitionRate(limit, () => 0), String(limit)).toThrow(RangeError);
    expect(() => new TransitionRate(0, () => 0)).not.toThrow();
  });

  it('takes one slot per transition sent, refuses past the limit, and rolls after a minute', async () => {
    let now = 1_000_000;
    const rate = new TransitionRate(2, () => now);
    await expect(sent(rate)).resolves.toBe('sent');
    await expect(sent(rate)).resolves.toBe('sent');
    expect(rate.view()).toEqual({ used_last_minute: 2, limit_per_minute: 2 });
    now += 30_000;
    const refused = await sent(rate).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ToolError);
    expect(refused).toMatchObject({
      code: 'rate_limited',
      message:
        'this server allows at most 2 merges and splits per minute; the next one is possible in 30 s',
    });
    expect(rate.view().used_last_minute).toBe(2);
    now += 30_000;
    expect(rate.view().used_last_minute).toBe(0);
    await expect(sent(rate)).resolves.toBe('sent');
    expect(rate.view().used_last_minute).toBe(1);
  });

  it('gives the slot back when nothing was sent or the wallet refused, keeps it otherwise', async () => {
    const rate = new TransitionRate(1, () => 0);
    await expect(
      rate.inSlot(async () => {
        throw new Error('the sync failed');
      }),
    ).rejects.toThrow('the sync failed');
    expect(rate.view().used_last_minute).toBe(0);
    await expect(
      rate.inSlot((send) =>
        send(async () => {
          throw new WalletError('insufficient_funds', 'no note');
        }),
      ),
    ).rejects.toThrow('no note');
    expect(rate.view().used_last_minute).toBe(0);
    // Sent and no clear answer: it may have left, so it counts.
    await expect(
      rate.inSlot((send) =>
        send(async () => {
          throw new Error('no answer');
        }),
      ),
    ).rejects.toThrow('no answer');
    expect(rate.view().used_last_minute).toBe(1);
    await expect(sent(rate)).rejects.toMatchObject({ code: 'rate_limited' });
  });

  it('a limit of 0 allows none, and says so', async () => {
    const rate = new TransitionRate(0, () => 0);
    await expect(sent(rate)).rejects.toMatchObject({
      code: 'rate_limited',
      message: 'this server allows no merges or splits (its limit is 0 per minute)',
    });
    expect(rate.view()).toEqual({ used_last_minute: 0, limit_per_minute: 0 });
  });
});
