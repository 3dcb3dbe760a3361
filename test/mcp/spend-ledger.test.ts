// The spend ledger: what counts against the rolling 24-hour limit (reserved and pending payments
// of any age, settled ones for 24 hours, expired and released ones not), the reservation under
// concurrency (fast-check's scheduler interleaves the steps of many payments: the counted sum never
// passes the limit), recovery after a restart (a ready-notes split is never taken for a payment),
// and the file (mode 0600, one server per ledger).

import { mkdtempSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';

import type { StoredPending } from '../../src/client/index.js';
import { LedgerFile } from '../../src/mcp/spend-ledger-file.js';
import { SpendLedger, WINDOW_MS } from '../../src/mcp/spend-ledger.js';
import { TRANSFER_RESOURCE_ID } from '../../src/scheme/index.js';

const what = (amount: bigint) => ({
  amount,
  network: 'shielded:devnet',
  asset: 'dUSD',
  payTo: 'pstark1merchant',
  host: '127.0.0.1:3000',
  url: 'http://127.0.0.1:3000/weather',
});

function record(
  nullifier: string,
  status: StoredPending['status'],
  extra: Partial<StoredPending> = {},
): StoredPending {
  return {
    nullifier: nullifier as StoredPending['nullifier'],
    note: '0x01' as StoredPending['note'],
    amount: '100',
    payTo: 'pstark1merchant',
    resourceId: 'GET /weather',
    change: '0x02' as StoredPending['change'],
    changeValue: '0',
    expiry: 1_000,
    createdAt: 0,
    status,
    ...extra,
  };
}

describe('SpendLedger', () => {
  it('counts reserved and pending payments of any age, settled ones for 24 hours, not expired or released ones', () => {
    let now = 1_000_000;
    const ledger = new SpendLedger([], () => now);
    const a = ledger.reserve(what(100n), 1000n);
    const b = ledger.reserve(what(200n), 1000n);
    const c = ledger.reserve(what(300n), 1000n);
    expect(ledger.counted()).toBe(600n);
    ledger.release(c.id); // nothing left the wallet
    expect(ledger.counted()).toBe(300n);
    ledger.markLeft(a.id, '0xaa', 5);
    ledger.markLeft(b.id, '0xbb', 5);
    expect(
      ledger.reconcile([
        record('0xaa', 'settled', { settlementId: '0xsettled' }),
        record('0xbb', 'pending'),
      ]),
    ).toBe(true);
    expect(ledger.counted()).toBe(300n);
    now += WINDOW_MS; // a day later: the settled one has left the window, the pending one still counts
    expect(ledger.counted()).toBe(200n);
    expect(ledger.reconcile([record('0xbb', 'expired')])).toBe(true);
    expect(ledger.counted()).toBe(0n);
    expect(ledger.entries().map((e) => e.status)).toEqual(['settled', 'expired', 'released']);
    expect(ledger.entries()[0]!.settlementId).toBe('0xsettled');
  });

  it('refuses a reservation that would pass the limit, naming the rule, and records nothing', () => {
    const ledger = new SpendLedger();
    ledger.reserve(what(700n), 1000n);
    expect(() => ledger.reserve(what(301n), 1000n)).toThrow(
      expect.objectContaining({ code: 'rolling_24h_limit', rule: 'maxPer24h' }),
    );
    expect(ledger.entries()).toHaveLength(1);
    ledger.reserve(what(300n), 1000n);
    expect(ledger.counted()).toBe(1000n);
  });

  it('never lets concurrent payments pass the limit (fast-check scheduler over every interleaving)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.bigInt({ min: 0n, max: 1000n }),
        fc.array(
          fc.record({
            amount: fc.bigInt({ min: 1n, max: 400n }),
            fails: fc.boolean(),
            settles: fc.boolean(),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        async (s, limit, payments) => {
          const ledger = new SpendLedger();
          let worst = 0n;
          const observe = () => {
            const counted = ledger.counted();
            if (counted > worst) worst = counted;
          };
          const records: StoredPending[] = [];
          // The steps of one payment as the agent takes them: load the policy (await), check and
          // reserve (synchronous), save the ledger (await), build the payment (await; may fail),
          // mark it left, and later the pool's log resolves it.
          const pay = async (p: (typeof payments)[number], i: number) => {
            await s.schedule(Promise.resolve('policy loaded'));
            let entry: ReturnType<typeof ledger.reserve>;
            try {
              entry = ledger.reserve(what(p.amount), limit);
            } catch {
              return 'refused';
            }
            observe();
            await s.schedule(Promise.resolve('ledger saved'));
            await s.schedule(Promise.resolve('payment built'));
            if (p.fails) {
              ledger.release(entry.id);
              return 'failed';
            }
            ledger.markLeft(entry.id, `0x${i}`, 0);
            observe();
            await s.schedule(Promise.resolve('pool log read'));
            records.push(record(`0x${i}`, p.settles ? 'settled' : 'expired'));
            ledger.reconcile(records);
            observe();
            return p.settles ? 'settled' : 'expired';
          };
          const outcomes = Promise.all(payments.map(pay));
          await s.waitAll();
          const results = await outcomes;
          expect(worst <= limit).toBe(true);
          const settled = payments.reduce(
            (sum, p, i) => (results[i] === 'settled' ? sum + p.amount : sum),
            0n,
          );
          expect(settled <= limit).toBe(true);
          expect(ledger.counted()).toBe(settled);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('after a restart, links a reservation to the wallet record it became, or releases it', () => {
    const ledger = new SpendLedger(
      [
        { ...what(100n), amount: '100', id: 'a', reservedAt: 1000, status: 'reserved' },
        { ...what(100n), amount: '250', id: 'b', reservedAt: 1000, status: 'reserved' },
        {
          ...what(100n),
          amount: '100',
          id: 'c',
          reservedAt: 5000,
          status: 'left',
          nullifier: '0xold',
          expiry: 9,
        },
      ],
      () => 10_000,
    );
    expect(
      ledger.recover([
        record('0xold', 'pending', { createdAt: 5001 }),
        record('0xnew', 'pending', { createdAt: 1001, expiry: 77 }),
      ]),
    ).toBe(true);
    const [a, b, c] = ledger.entries();
    expect(a).toMatchObject({ status: 'left', nullifier: '0xnew', expiry: 77 });
    expect(b).toMatchObject({ status: 'released' });
    expect(c).toMatchObject({ status: 'left', nullifier: '0xold' });
    expect(ledger.counted()).toBe(200n);
  });

  it('never links a reservation to a transfer through the pool node (a ready-notes split): it is not spending', () => {
    const own = 'pstark1thewalletitself';
    // A crashed run left a reservation for the wallet's own address, of the amount the keeper then
    // split off: the split's record (the pool's transfer context) must not be taken for it.
    const reservation = (id: string) => ({
      ...what(100n),
      payTo: own,
      amount: '100',
      id,
      reservedAt: 1000,
      status: 'reserved' as const,
    });
    const split = record('0xsplit', 'settled', {
      payTo: own,
      resourceId: TRANSFER_RESOURCE_ID,
      createdAt: 1001,
      settlementId: '0xs',
    });
    const ledger = new SpendLedger([reservation('a')], () => 10_000);
    expect(ledger.recover([split])).toBe(true);
    expect(ledger.entries()).toEqual([
      expect.objectContaining({ id: 'a', status: 'released', resolvedAt: 10_000 }),
    ]);
    expect(ledger.entries()[0]!.nullifier).toBeUndefined();
    expect(ledger.counted()).toBe(0n);
    // Reconciling with the split later changes nothing either: no entry carries its nullifier.
    expect(ledger.reconcile([split])).toBe(false);
    // The twin: the same record in a merchant's context is the payment the reservation became.
    const payment = { ...split, resourceId: 'GET /weather' };
    const twin = new SpendLedger([reservation('b')], () => 10_000);
    expect(twin.recover([payment])).toBe(true);
    expect(twin.entries()).toEqual([
      expect.objectContaining({ id: 'b', status: 'settled', nullifier: '0xsplit' }),
    ]);
    expect(twin.counted()).toBe(100n);
  });

  it('prunes resolved entries after a week, never unresolved ones', () => {
    let now = 0;
    const ledger = new SpendLedger([], () => now);
    const a = ledger.reserve(what(1n), 10n);
    ledger.release(a.id);
    ledger.reserve(what(1n), 10n);
    now = 8 * WINDOW_MS;
    expect(ledger.prune()).toBe(true);
    expect(ledger.entries().map((e) => e.status)).toEqual(['reserved']);
  });
});

describe('LedgerFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'priv-stark-ledger-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the window across a restart, in a file only its owner can read', async () => {
    const path = join(dir, 'a.spend.json');
    const file = await LedgerFile.open(path);
    const entry = file.ledger.reserve(what(400n), 1000n);
    file.ledger.markLeft(entry.id, '0xaa', 99);
    await file.save();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await file.close();
    const reopened = await LedgerFile.open(path);
    expect(reopened.ledger.counted()).toBe(400n);
    expect(() => reopened.ledger.reserve(what(601n), 1000n)).toThrow(/maxPer24h/);
    await reopened.close();
  });

  it("one server per ledger: a second open is refused while the first holds it; a dead holder's lock is taken over", async () => {
    const path = join(dir, 'b.spend.json');
    const first = await LedgerFile.open(path);
    await expect(LedgerFile.open(path)).rejects.toMatchObject({ code: 'ledger_locked' });
    await first.close();
    // A lock left by a process that has exited.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    writeFileSync(`${path}.lock`, gone.stdout);
    const again = await LedgerFile.open(path);
    await again.close();
    // A lock held by a live process other than this one.
    writeFileSync(`${path}.lock`, String(process.ppid));
    await expect(LedgerFile.open(path)).rejects.toThrow(/in use by process/);
  });

  it('refuses a ledger others can read, and one it did not write', async () => {
    const open = join(dir, 'c.spend.json');
    writeFileSync(open, JSON.stringify({ version: 1, entries: [] }));
    chmodSync(open, 0o644);
    await expect(LedgerFile.open(open)).rejects.toMatchObject({ code: 'ledger_invalid' });
    const foreign = join(dir, 'd.spend.json');
    writeFileSync(foreign, JSON.stringify({ version: 1, entries: [{ id: 'x', amount: '-5' }] }));
    chmodSync(foreign, 0o600);
    await expect(LedgerFile.open(foreign)).rejects.toMatchObject({ code: 'ledger_invalid' });
    // A refused open gives its lock back.
    chmodSync(open, 0o600);
    await (await LedgerFile.open(open)).close();
  });
});
