/**
 * `priv-stark mcp` as an agent's MCP client starts it: the built command (`dist/cli/main.js`,
 * brought up to date by `node scripts/build.mjs ts`) in a child process, spoken to through the MCP
 * SDK's own client over stdio or streamable HTTP.
 */

import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const MAIN = join(ROOT, 'dist/cli/main.js');

/** Compiles `src/` to `dist/` when it changed (content-hashed: quick when nothing did). */
export function buildDist(): void {
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), 'ts', '--quiet'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`node scripts/build.mjs ts failed:\n${built.stderr}`);
}

/** A connected MCP client and what its server wrote to stderr. */
export interface McpSession {
  readonly client: Client;
  readonly stderr: () => string;
  /** Transport or protocol errors the client saw (e.g. a non-MCP line on stdout). */
  readonly errors: Error[];
  /** Calls a tool; a tool error is returned, not thrown. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

function session(
  client: Client,
  stderr: () => string,
  errors: Error[],
  close: () => Promise<void>,
): McpSession {
  return {
    client,
    stderr,
    errors,
    call: async (name, args = {}) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    close,
  };
}

/** Spawns `node dist/cli/main.js mcp …` and connects over stdio. */
export async function startStdio(args: string[], env: Record<string, string>): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, 'mcp', ...args],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
    cwd: ROOT,
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const errors: Error[] = [];
  const client = new Client({ name: 'priv-stark-test', version: '0.0.0' });
  client.onerror = (error) => errors.push(error);
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`mcp over stdio did not start: ${(error as Error).message}\n${stderr}`);
  }
  return session(
    client,
    () => stderr,
    errors,
    () => client.close(),
  );
}

/** Spawns `node dist/cli/main.js mcp --http 0 …`, reads its URL and connects over streamable HTTP. */
export async function startHttp(
  args: string[],
  env: Record<string, string>,
): Promise<McpSession & { url: string }> {
  const child = spawn(process.execPath, [MAIN, 'mcp', '--http', '0', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = /^(http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(out);
      if (line) resolve(line[1]!);
    });
    child.once('exit', (code) => reject(new Error(`mcp --http exited with ${code}:\n${stderr}`)));
  });
  const errors: Error[] = [];
  const client = new Client({ name: 'priv-stark-test', version: '0.0.0' });
  client.onerror = (error) => errors.push(error);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    ...session(
      client,
      () => stderr,
      errors,
      async () => {
        await client.close();
        child.kill('SIGTERM');
        await exited;
      },
    ),
    url,
  };
}

/** The stable code a tool error starts with (`per_payment_limit: …`). */
export function errorCode(result: CallToolResult): string | null {
  if (!result.isError) return null;
  const text = result.content.find((c) => c.type === 'text');
  return text && text.type === 'text' ? (/^([a-z0-9_]+):/.exec(text.text)?.[1] ?? null) : null;
}

/** The text of a tool result. */
export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}
