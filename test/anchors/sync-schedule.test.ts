// Sync schedules that name nobody (issue 25, item 3): the MCP server's syncs come at intervals
// drawn anew around their mean, and on an epoch grid a payment is not followed by polling that
// stops at the wallet's own settlement (its twin: a pool without a grid still waits as before).

import { describe, expect, it } from 'vitest';

import { jitteredMs } from '../../src/cli/mcp.js';
import type { Wallet } from '../../src/client/index.js';
import { SpendBookkeeping } from '../../src/mcp/spend-bookkeeping.js';
import type { LedgerFile } from '../../src/mcp/spend-ledger-file.js';

describe('sync schedules', () => {
  it('draws each MCP sync interval in [0.5, 1.5) of its mean, not a fixed period', () => {
    const draws = Array.from({ length: 400 }, () => jitteredMs(30_000));
    for (const ms of draws) {
      expect(ms).toBeGreaterThanOrEqual(15_000);
      expect(ms).toBeLessThanOrEqual(45_000);
    }
    expect(new Set(draws).size).toBeGreaterThan(300);
    expect(Math.min(...draws)).toBeLessThan(20_000);
    expect(Math.max(...draws)).toBeGreaterThan(40_000);
  });

  /** Bookkeeping over a wallet that only counts its syncs (its payment never resolves). */
  function counting(epochMs: number | null) {
    let syncs = 0;
    const wallet = {
      epochGrid: epochMs === null ? null : { epochMs, anchorDelayMs: 0 },
      sync: async () => {
        syncs++;
      },
      payments: () => [],
      notes: () => [],
    } as unknown as Wallet;
    const ledger = {
      reconcile: () => false,
      reconcileWithdrawals: () => false,
      prune: () => false,
      entries: () => [{ id: 'e1', status: 'left' }],
    };
    const file = { ledger, save: async () => undefined } as unknown as LedgerFile;
    return { book: new SpendBookkeeping(wallet, file, Date.now, 5), syncs: () => syncs };
  }

  it('on an epoch grid, does not poll for its own settlement', async () => {
    const { book, syncs } = counting(60_000);
    await book.waitForResolution('e1', 200);
    expect(syncs()).toBe(0);
  });

  it('the twin: without a grid it syncs until the wait passes, as before', async () => {
    const { book, syncs } = counting(1);
    await book.waitForResolution('e1', 60);
    expect(syncs()).toBeGreaterThan(1);
  });
});
