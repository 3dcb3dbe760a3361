/**
 * A real PostgreSQL for the tests: `DATABASE_URL` when it is set (the role must be allowed to
 * create databases), otherwise a throwaway cluster started here — `initdb` in a temporary
 * directory, `pg_ctl start` on a free localhost port, removed at the end. The binaries come from
 * `PG_BIN`, `/usr/lib/postgresql/<version>/bin` (Debian's layout) or the PATH. PostgreSQL refuses
 * to run as root, so as root the cluster runs as the `postgres` user (`runuser`), in a directory
 * that user owns. Every test gets a database of its own (`newDatabase()`).
 */

import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import pg from 'pg';
import { freePort } from './free-port.js';

/** A PostgreSQL server the tests may create databases on. */
export interface TestPostgres {
  /** A connection string of the maintenance database. */
  readonly adminUrl: string;
  /** Creates an empty database and returns its connection string. */
  newDatabase(): Promise<string>;
  /** Stops the server without removing it (throwaway clusters only), to test a store that is down. */
  pause(): void;
  /** Starts it again after {@link pause}. */
  resume(): void;
  /** Drops what it created; stops and removes a throwaway cluster. */
  stop(): Promise<void>;
}

/** Where the PostgreSQL server binaries are, or `null`. */
export function postgresBinDir(): string | null {
  const candidates: string[] = [];
  if (process.env.PG_BIN) candidates.push(process.env.PG_BIN);
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    for (const version of readdirSync(debian).sort((a, b) => Number(b) - Number(a)))
      candidates.push(join(debian, version, 'bin'));
  }
  for (const dir of candidates)
    if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  const found = which.stdout.trim();
  return which.status === 0 && found ? join(found, '..') : null;
}

/** Whether the tests can have a PostgreSQL at all. */
export function postgresAvailable(): boolean {
  return Boolean(process.env.DATABASE_URL) || postgresBinDir() !== null;
}

function databaseUrl(base: string, database: string): string {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

let counter = 0;

function creator(adminUrl: string, created: string[]) {
  return async (): Promise<string> => {
    const name = `pstark_${process.pid}_${Date.now().toString(36)}_${counter++}`;
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${name}`);
    } finally {
      await client.end();
    }
    created.push(name);
    return databaseUrl(adminUrl, name);
  };
}

async function dropAll(adminUrl: string, created: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect().catch(() => undefined);
  for (const name of created.splice(0)) {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
  }
  await client.end().catch(() => undefined);
}

/**
 * Starts (or connects to) the test PostgreSQL.
 * @throws when neither `DATABASE_URL` nor the server binaries are available
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  const created: string[] = [];
  const external = process.env.DATABASE_URL;
  if (external) {
    return {
      adminUrl: external,
      newDatabase: creator(external, created),
      pause: () => {
        throw new Error('pause() needs a throwaway cluster (DATABASE_URL is set)');
      },
      resume: () => undefined,
      stop: () => dropAll(external, created),
    };
  }

  const bin = postgresBinDir();
  if (!bin)
    throw new Error(
      'PostgreSQL server binaries not found: install postgresql-15 (apt-get install postgresql-15) or set DATABASE_URL',
    );
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'priv-stark-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'log');
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]) => {
    const command = asRoot ? 'runuser' : join(bin, tool);
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    const result = spawnSync(command, argv, { encoding: 'utf8', cwd: dir });
    if (result.status !== 0) {
      throw new Error(
        `${tool} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout}`,
      );
    }
  };
  run('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '-A',
    'trust',
    '--no-sync',
    '-E',
    'UTF8',
    '--locale=C',
  ]);
  const port = await freePort();
  const start = () =>
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      log,
      '-w',
      '-t',
      '30',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=64MB`,
      'start',
    ]);
  start();
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let stopped = false;
  const stopCluster = () => {
    if (stopped) return;
    stopped = true;
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // already down
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stopCluster);
  return {
    adminUrl,
    newDatabase: creator(adminUrl, created),
    pause: () => run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']),
    resume: start,
    stop: async () => {
      stopCluster();
      process.removeListener('exit', stopCluster);
    },
  };
}
