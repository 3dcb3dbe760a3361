// The attested unpaid sets on both stores (a SQLite file and a throwaway PostgreSQL): a set read
// back by its root as recorded, from a handle opened again (durable); the same root recorded again
// keeps its withdrawals and takes the later sequence; an unknown root is `null`; the empty set; only
// the newest sets are kept; a damaged set (a withdrawal row gone) reads as `null`, never as part.

import { afterEach, describe, expect, it } from 'vitest';

import { type AttestedSets, KEPT_SETS } from '../../src/ledger/attested-sets.js';
import { openAttestedSets } from '../../src/ledger/open-attested-sets.js';
import { sqlitePath } from '../../src/ledger/sqlite-store.js';
import { postgresAvailable } from '../../testkit/postgres.js';
import { STORE_KINDS, storeHarness } from './helpers/stores.js';

const kinds = STORE_KINDS.filter(
  (kind) => kind === 'sqlite' || postgresAvailable() || process.env.CI,
);

const hex = (n: number, width: number) => `0x${n.toString(16).padStart(width, '0')}`;
const root = (n: number) => hex(0xf00 + n, 64);
const withdrawal = (n: number) => ({
  withdrawalId: hex(n, 64),
  to: `0x${'Ab'.repeat(19)}${n.toString(16).padStart(2, '0')}`,
  amount: String(1_000 + n),
});

describe.each(kinds)('attested unpaid sets on the %s store', (kind) => {
  const harness = storeHarness(kind);
  let handles: AttestedSets[] = [];
  afterEach(async () => {
    await Promise.all(handles.map((h) => h.close()));
    handles = [];
  });
  async function fresh() {
    const { config } = await harness.fresh();
    const open = () => {
      const sets = openAttestedSets(config);
      handles.push(sets);
      return sets;
    };
    return { sets: open(), open, config };
  }

  it('reads a set back by its root, from a handle opened again; lower-cased keys', async () => {
    const { sets, open } = await fresh();
    const set = {
      seq: 3,
      unpaidRoot: root(1).toUpperCase().replace('0X', '0x'),
      withdrawals: [withdrawal(2), withdrawal(1)],
    };
    await sets.record(set, 1000);
    const again = await open().byRoot(root(1));
    expect(again).toEqual({
      seq: 3,
      unpaidRoot: root(1),
      withdrawals: [withdrawal(1), withdrawal(2)].map((w) => ({ ...w, to: w.to.toLowerCase() })),
    });
    expect(await sets.byRoot(root(2))).toBeNull();
  });

  it('the same root again keeps its withdrawals and the later sequence; the empty set', async () => {
    const { sets } = await fresh();
    await sets.record({ seq: 5, unpaidRoot: root(1), withdrawals: [withdrawal(1)] }, 1);
    await sets.record({ seq: 9, unpaidRoot: root(1), withdrawals: [withdrawal(1)] }, 2);
    await sets.record({ seq: 7, unpaidRoot: root(1), withdrawals: [withdrawal(1)] }, 3);
    expect((await sets.byRoot(root(1)))?.seq).toBe(9);
    expect((await sets.byRoot(root(1)))?.withdrawals).toHaveLength(1);
    const zero = hex(0, 64);
    await sets.record({ seq: 10, unpaidRoot: zero, withdrawals: [] }, 4);
    expect(await sets.byRoot(zero)).toEqual({ seq: 10, unpaidRoot: zero, withdrawals: [] });
  });

  it(`keeps the newest ${KEPT_SETS} sets only`, async () => {
    const { sets } = await fresh();
    for (let i = 1; i <= KEPT_SETS + 3; i++)
      await sets.record({ seq: i * 10, unpaidRoot: root(i), withdrawals: [withdrawal(i)] }, i);
    for (let i = 1; i <= 3; i++) expect(await sets.byRoot(root(i))).toBeNull();
    for (let i = 4; i <= KEPT_SETS + 3; i++)
      expect((await sets.byRoot(root(i)))?.withdrawals[0]?.withdrawalId).toBe(hex(i, 64));
  });

  it('must-fail twin: a set missing a withdrawal row reads as null', async () => {
    const { sets, config } = await fresh();
    await sets.record(
      { seq: 1, unpaidRoot: root(1), withdrawals: [withdrawal(1), withdrawal(2)] },
      1,
    );
    const drop = `DELETE FROM attested_withdrawals WHERE withdrawal_id = '${hex(2, 64)}'`;
    if (kind === 'sqlite') {
      const Database = (await import('better-sqlite3')).default;
      const db = new Database(sqlitePath(config.dataDir!));
      db.exec(drop);
      db.close();
    } else {
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString: config.databaseUrl });
      await client.connect();
      await client.query(drop);
      await client.end();
    }
    expect(await sets.byRoot(root(1))).toBeNull();
  });
});
