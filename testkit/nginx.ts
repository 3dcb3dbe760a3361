/**
 * nginx in front of a test server, as a merchant would put it there: Debian's nginx
 * (`NGINX_PATH`, or `/usr/sbin/nginx`: scripts/system-deps.sh installs it) started here in the
 * foreground with a configuration generated in a temporary directory — `daemon off`, its pid file,
 * error log and temp paths in that directory, a loopback listener on a free port, `proxy_pass` to
 * the upstream, or to an `upstream` block of several (a load balancer on nginx's defaults: round
 * robin, `max_fails=1 fail_timeout=10s`, `proxy_next_upstream error timeout`, so a POST goes to the
 * next server only when it could not be sent) — and nginx's **default** header buffers:
 * `large_client_header_buffers` is not set (4 × 8 KB: a request header line over 8 KB is answered
 * 400) unless a test adds directives of its own to the server block. As root its workers run as
 * `nobody` (nginx's own default user, with Debian's `nogroup`).
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/** A running nginx. */
export interface Nginx {
  /** Its listener's base URL. */
  readonly url: string;
  /** The generated configuration (for a failing test's message). */
  readonly config: string;
  /** What nginx wrote to its error log so far. */
  errorLog(): string;
  close(): Promise<void>;
}

/** The nginx binary, or `null`. */
export function nginxPath(): string | null {
  return (
    [process.env.NGINX_PATH, '/usr/sbin/nginx'].find(
      (path): path is string => !!path && existsSync(path),
    ) ?? null
  );
}

/**
 * Starts nginx proxying to `upstream` (`http://127.0.0.1:<port>`); resolves once it answers. Given
 * several URLs, nginx balances them: an `upstream priv_stark_upstreams` block with one `server` per
 * URL (its host and port), nginx's defaults otherwise.
 * @param options.server directives added to the server block (none: nginx's defaults)
 * @param options.cache a caching proxy: responses kept as the upstream's `Cache-Control` allows
 *   (`proxy_cache`, in this directory), stale ones revalidated with their validators
 *   (`proxy_cache_revalidate`); each reply says `X-Cache-Status` (HIT, MISS, REVALIDATED, …)
 * @throws when there is no nginx binary, or it does not come up (with its error log)
 */
export async function startNginx(
  upstream: string | readonly string[],
  options: { server?: readonly string[]; cache?: boolean } = {},
): Promise<Nginx> {
  const binary = nginxPath();
  if (!binary)
    throw new Error('nginx not found: install it (apt-get install nginx) or set NGINX_PATH');
  const servers = typeof upstream === 'string' ? null : upstream.map((url) => new URL(url).host);
  if (servers?.length === 0) throw new Error('startNginx: no upstream');
  const dir = mkdtempSync(join(tmpdir(), 'priv-stark-nginx-'));
  // nginx's workers (nobody, as root) reach their temp paths through this directory.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const errorLog = join(dir, 'error.log');
  const config = [
    'daemon off;',
    ...(process.getuid?.() === 0 ? ['user nobody nogroup;'] : []),
    'worker_processes 1;',
    `pid ${join(dir, 'nginx.pid')};`,
    `error_log ${errorLog} warn;`,
    'events { worker_connections 64; }',
    'http {',
    '  access_log off;',
    `  client_body_temp_path ${join(dir, 'client_body')};`,
    `  proxy_temp_path ${join(dir, 'proxy')};`,
    `  fastcgi_temp_path ${join(dir, 'fastcgi')};`,
    `  uwsgi_temp_path ${join(dir, 'uwsgi')};`,
    `  scgi_temp_path ${join(dir, 'scgi')};`,
    ...(options.cache
      ? [
          `  proxy_cache_path ${join(dir, 'cache')} levels=1:2 keys_zone=pages:1m use_temp_path=off;`,
        ]
      : []),
    ...(servers
      ? [
          '  upstream priv_stark_upstreams {',
          ...servers.map((host) => `    server ${host};`),
          '  }',
        ]
      : []),
    '  server {',
    `    listen 127.0.0.1:${port};`,
    ...(options.cache
      ? [
          '    proxy_cache pages;',
          '    proxy_cache_revalidate on;',
          '    add_header X-Cache-Status $upstream_cache_status always;',
        ]
      : []),
    ...(options.server ?? []).map((directive) => `    ${directive}`),
    '    location / {',
    `      proxy_pass ${servers ? 'http://priv_stark_upstreams' : upstream};`,
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');
  const configPath = join(dir, 'nginx.conf');
  writeFileSync(configPath, config);
  const child: ChildProcess = spawn(binary, ['-p', dir, '-e', errorLog, '-c', configPath], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const readLog = () => (existsSync(errorLog) ? readFileSync(errorLog, 'utf8') : '');
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  process.once('exit', kill);
  const close = async () => {
    kill();
    await exited;
    process.removeListener('exit', kill);
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null || child.signalCode !== null || attempt >= 200) {
      const log = readLog();
      await close();
      throw new Error(`nginx did not start: ${stderr}${log}\n${config}`);
    }
    const up = await fetch(url, { signal: AbortSignal.timeout(1000) }).then(
      async (response) => {
        await response.body?.cancel();
        return true;
      },
      () => false,
    );
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url, config, errorLog: readLog, close };
}
