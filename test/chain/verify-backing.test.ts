// `wallet verify-backing` (src/client/chain-backing.ts; docs/audit.md, "Wallet: verify-backing")
// against a chain pool on the shared node: after the pool node's attester posted its claim, a
// wallet's own tree gives the attested root at the attested checkpoint, and its unspent notes are
// sorted into those the attestation covers and those newer. Two wallets holding different notes
// send the identical requests — to the pool node and to the RPC. Must-fail twins: nothing attested
// yet, and an attestation whose root is not the pool's (an attester that lies) is a root mismatch.
// In the background (`checkBackingInBackground`), two such wallets read the user's RPC through
// their SOCKS5 proxy and again send the identical requests.

import { createServer } from 'node:http';

import type { Hex } from 'viem';
import { createPublicClient, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  type BackingCheckResult,
  type BackingReport,
  checkBackingInBackground,
  verifyBacking,
} from '../../src/client/chain.js';
import { Wallet } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore, randomDigest } from '../../src/core/index.js';
import { PoolNodeClient } from '../../src/pool-node/index.js';
import { mcpBackingCheck, startMcpBackingCheck } from '../../src/cli/mcp-backing.js';
import { listen, socks5, type Tunnel } from '../../testkit/proxy-servers.js';
import { type ChainStack, chainStack } from './chain-stack.js';
import { depositDirect, depositor, escrowCall, escrowRead } from './shared.js';

const TOKEN = 'chain-stack-operator-token-0123456789';

/** A fetch that records each request (method, URL, and the body without JSON-RPC ids). */
function recorder() {
  const sent: string[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    let body = typeof init?.body === 'string' ? init.body : '';
    if (body.startsWith('{') || body.startsWith('[')) {
      const strip = (m: Record<string, unknown>) => ({ ...m, id: 0 });
      const parsed = JSON.parse(body);
      body = JSON.stringify(Array.isArray(parsed) ? parsed.map(strip) : strip(parsed));
    }
    sent.push(`${init?.method ?? 'GET'} ${url} ${body}`);
    return globalThis.fetch(input, init);
  };
  return { sent, fetch };
}

/** An RPC in front of the node that records each body it passes on (JSON-RPC ids left out). */
async function recordingRpc(target: string) {
  const sent: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks).toString();
      const parsed = JSON.parse(body);
      const strip = (m: Record<string, unknown>) => ({ ...m, id: 0 });
      sent.push(JSON.stringify(Array.isArray(parsed) ? parsed.map(strip) : strip(parsed)));
      const answer = await globalThis.fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(await answer.text());
    });
  });
  const port = await listen(server);
  return {
    sent,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Recorded {
  readonly wallet: Wallet;
  readonly pool: ReturnType<typeof recorder>;
  readonly rpc: ReturnType<typeof recorder>;
  check(): Promise<BackingReport>;
}

let core: PrivStarkCore;
let stack: ChainStack;
let a: Recorded;
let b: Recorded;

/** A wallet on the stack whose pool node and RPC requests are recorded. */
async function recordedWallet(): Promise<Recorded> {
  const pool = recorder();
  const rpc = recorder();
  const wallet = await Wallet.create({
    core,
    pool: new PoolNodeClient(stack.poolUrl, { fetch: pool.fetch }),
    network: stack.profile,
  });
  const client = createPublicClient({ transport: http(stack.f.chain.url, { fetchFn: rpc.fetch }) });
  return { wallet, pool, rpc, check: () => verifyBacking(wallet, { rpc: client }) };
}

/** Deposits `amounts` into `wallet`'s tickets through the escrow, shielded and checkpointed. */
async function fund(wallet: Wallet, amounts: readonly bigint[]): Promise<void> {
  const payer = await depositor(stack.f, 10_000_000n);
  for (const amount of amounts) {
    const ticket = await wallet.depositTicket(amount.toString());
    await depositDirect(stack.f, payer, amount, ticket.pre as Hex);
  }
  await stack.shieldAll();
}

const attest = () => new PoolNodeClient(stack.poolUrl, { token: TOKEN }).attest();

beforeAll(async () => {
  core = await loadCore();
  stack = await chainStack({ attester: true });
  a = await recordedWallet();
  b = await recordedWallet();
});
afterAll(() => stack?.close());

describe('wallet verify-backing', () => {
  it('must-fail twin: nothing attested yet shows nothing', async () => {
    await fund(a.wallet, [1_500_000n]);
    const report = await a.check();
    expect(report).toMatchObject({ ok: false, problems: ['not_attested'], attestation: null });
    expect(report.cannotShow.length).toBeGreaterThan(0);
  });

  it('shows the attested root in the wallet’s own tree and which notes it covers; two wallets send the same requests', async () => {
    await fund(b.wallet, [2_000_000n, 2_500_000n]);
    const posted = await attest();
    expect(posted.outcome).toBe('attested');
    // Both at the same head first (a sync reads from each wallet's own cursors).
    await a.wallet.sync();
    await b.wallet.sync();
    for (const r of [a, b]) r.pool.sent.length = r.rpc.sent.length = 0;
    const [ra, rb] = [await a.check(), await b.check()];
    for (const report of [ra, rb])
      expect(report).toMatchObject({
        ok: true,
        problems: [],
        attestation: { seq: posted.seq, root: posted.root },
        checkpoint: { seq: posted.seq, root: posted.root, localRoot: posted.root },
        notYetCovered: { notes: 0, value: '0' },
      });
    expect(ra.covered).toEqual({ notes: 1, value: '1500000' });
    expect(rb.covered).toEqual({ notes: 2, value: '4500000' });
    // Different notes, the same requests: nothing names a note, an index or a page of its own.
    expect(a.pool.sent.length).toBeGreaterThan(0);
    expect(a.rpc.sent.length).toBeGreaterThan(0);
    expect([...a.pool.sent].sort()).toEqual([...b.pool.sent].sort());
    expect([...a.rpc.sent].sort()).toEqual([...b.rpc.sent].sort());
    // A deposit after the attestation: newer than it, not covered yet.
    await fund(a.wallet, [1_000_000n]);
    const later = await a.check();
    expect(later.ok).toBe(true);
    expect(later.notYetCovered).toEqual({ notes: 1, value: '1000000' });
  });

  it('in the background, through the wallet’s proxy: two wallets holding different notes send the same requests', async () => {
    const tunnels: Tunnel[] = [];
    const proxy = socks5(tunnels);
    const proxyUrl = `socks5h://127.0.0.1:${await listen(proxy)}`;
    const rpc = await recordingRpc(stack.f.chain.url);
    try {
      const background = async () => {
        const pool = recorder();
        const wallet = await Wallet.create({
          core,
          pool: new PoolNodeClient(stack.poolUrl, { fetch: pool.fetch }),
          network: stack.profile,
          poolProxy: proxyUrl,
        });
        return { wallet, pool };
      };
      const [x, y] = [await background(), await background()];
      await fund(x.wallet, [1_200_000n]);
      await fund(y.wallet, [1_300_000n, 1_400_000n]);
      const posted = await attest();
      // Both at the same head first, as in the test above.
      await x.wallet.sync();
      await y.wallet.sync();
      const outcomes: BackingCheckResult[][] = [];
      const rpcSent: string[][] = [];
      for (const w of [x, y]) {
        w.pool.sent.length = 0;
        const before = rpc.sent.length;
        // One check (every slot a check's on a pool without a grid), then the wallet stops.
        const first = new Promise<BackingCheckResult>((resolve) => {
          checkBackingInBackground(w.wallet, {
            rpc: rpc.url,
            everyMs: 50,
            onResult: (result) => {
              void w.wallet.stop();
              resolve(result);
            },
          });
        });
        const result = await first;
        outcomes.push([result]);
        rpcSent.push(rpc.sent.slice(before));
        expect(w.wallet.backingCheck).toBe(result);
      }
      for (const [result] of outcomes)
        expect(result).toMatchObject({
          kind: 'report',
          ok: true,
          report: { attestation: { seq: posted.seq, root: posted.root } },
        });
      const reports = outcomes.map(
        ([r]) => (r as Extract<BackingCheckResult, { kind: 'report' }>).report,
      );
      expect(reports.map((r) => r.covered.notes)).toEqual([1, 2]);
      // The RPC was read through the proxy; the same requests from both wallets.
      const rpcTarget = `127.0.0.1:${new URL(rpc.url).port}`;
      expect(tunnels.filter((t) => t.target === rpcTarget).length).toBeGreaterThanOrEqual(2);
      expect(rpcSent[0]!.length).toBeGreaterThan(0);
      expect([...rpcSent[0]!].sort()).toEqual([...rpcSent[1]!].sort());
      expect(x.pool.sent.length).toBeGreaterThan(0);
      expect([...x.pool.sent].sort()).toEqual([...y.pool.sent].sort());
      // A checkpoint past this attestation, for the next test's attester to claim.
      await fund(x.wallet, [1_000_000n]);
    } finally {
      await rpc.close();
      proxy.close();
    }
  });

  it('must-fail twin: an attestation of a root the pool does not have is a root mismatch', async () => {
    // An attester that lies: the checkpoint is the pool's, the root is not.
    const liar = privateKeyToAccount(generatePrivateKey());
    await stack.f.chain.test.setBalance({ address: liar.address, value: 10n ** 18n });
    const role = await escrowRead<Hex>(stack.f, 'ATTESTER_ROLE');
    await escrowCall(stack.f, stack.f.admin, 'grantRole', [role, liar.address]);
    const seq = (await stack.service.ledger.publishedState()).checkpoint!.seq;
    await escrowCall(stack.f, liar, 'attest', [
      BigInt(seq),
      randomDigest(),
      randomDigest(),
      [0n, 0n, 0n, 0n],
      randomDigest(),
    ]);
    const report = await b.check();
    expect(report).toMatchObject({ ok: false, problems: ['root_mismatch'] });
    expect(report.checkpoint?.localRoot).toBe(report.checkpoint?.root);
    expect(report.attestation?.root).not.toBe(report.checkpoint?.root);
  });

  it('the MCP server’s check (with --chain-rpc) logs the attested sequence and the problem, nothing of the wallet’s notes', async () => {
    expect(mcpBackingCheck(undefined, undefined)).toBeNull();
    expect(mcpBackingCheck(stack.f.chain.url, '0')).toBeNull();
    expect(() => mcpBackingCheck(stack.f.chain.url, '1h')).toThrow(/--backing-check-every-ms/);
    const config = mcpBackingCheck(stack.f.chain.url, '50')!;
    const lines: string[] = [];
    const logged = new Promise<void>((resolve) => {
      void startMcpBackingCheck(b.wallet, config, (line) => {
        lines.push(line);
        if (line.includes('NOT shown') || line.includes('gives the attested root')) resolve();
      });
    });
    await logged;
    await b.wallet.stop();
    // The liar's attestation of the test above is the latest: a root mismatch, said with its sequence.
    const seq = (await stack.service.ledger.publishedState()).checkpoint!.seq;
    expect(lines.at(-1)).toBe(`backing check: NOT shown (root_mismatch) at attestation ${seq}`);
    for (const note of b.wallet.notes()) expect(lines.join('\n')).not.toContain(note.value);
  });
});
