// The shared rate-limit store on PostgreSQL: instances starting together on a fresh database all
// get their store (creating its table is serialised; CREATE TABLE IF NOT EXISTS alone is not safe
// against itself), and the counters they keep are shared.

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { postgresRateLimitStore } from '../../src/http/index.js';
import { startTestPostgres, type TestPostgres } from '../../testkit/postgres.js';

describe('PostgreSQL rate-limit store', () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startTestPostgres();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('eight instances starting at once on a fresh database all start, and share their counters', async () => {
    for (let round = 0; round < 4; round++) {
      const url = await server.newDatabase();
      const pools = Array.from({ length: 8 }, () => new pg.Pool({ connectionString: url, max: 2 }));
      try {
        const stores = await Promise.all(pools.map((p) => postgresRateLimitStore(p)));
        const counts = [];
        for (const Store of stores) {
          const store = new Store({});
          counts.push(
            await new Promise<number>((resolve, reject) =>
              store.incr(
                'key',
                (error, result) => (error ? reject(error) : resolve(result!.current)),
                60_000,
                100,
              ),
            ),
          );
        }
        expect(counts).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      } finally {
        await Promise.all(pools.map((p) => p.end()));
      }
    }
  }, 120_000);
});
