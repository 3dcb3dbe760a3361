// The MCP server as an agent runs it: `node dist/cli/main.js mcp` in a child process, driven by the
// MCP SDK's client over stdio (and once over streamable HTTP), against the facilitator and pool
// node as `priv-stark start` runs them and merchants on the stock @x402/express middleware on
// Node's default header limit, all on loopback. Payments within the policy are made compactly (the
// proof handed over to the pool node) and settled in the pool's log; refusals name the rule and
// spend nothing; a merchant whose facilitator rejects the payment loses no note.

import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

import { x402ResourceServer } from '@x402/core/server';
import { paymentMiddleware } from '@x402/express';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Wallet } from '../../src/client/index.js';
import { loadCore, type PrivStarkCore } from '../../src/core/index.js';
import { settlementId } from '../../src/ledger/index.js';
import { EXPIRY_GRANULARITY_SECONDS } from '../../src/scheme/index.js';
import {
  PrivStarkFacilitatorClient,
  PrivStarkSchemeServer,
  privStarkRoutes,
} from '../../src/server/index.js';
import {
  API_KEY,
  expressMerchant,
  type Merchant,
  PRICE_ATOMIC,
  type Stack,
  startStack,
} from '../../testkit/stack.js';
import {
  buildDist,
  errorCode,
  MAIN,
  type McpSession,
  ROOT,
  startHttp,
  startStdio,
  textOf,
} from './helpers/child.js';

const NOTE = 30_000n;
const dir = mkdtempSync(join(tmpdir(), 'priv-stark-mcp-'));
const walletPath = join(dir, 'agent.wallet');
const policyPath = join(dir, 'policy.json');
const ledgerPath = `${walletPath}.spend.json`;

let core: PrivStarkCore;
let stack: Stack;
/** A second facilitator over another pool: it knows nothing of the payer's pool and rejects its payments. */
let foreign: Stack;
let merchant: Merchant;
let merchantAddress: string;
let stranger: Merchant;
let rejecting: { url: string; close(): Promise<void> };
let mcp: McpSession;
/** Expiry (unix s) of the payment the rejecting merchant's facilitator refused. */
let rejectedExpiry = 0;

/** A merchant on @x402/express whose facilitator is `facilitatorUrl`, with a one-second payment timeout. */
async function shortTimeoutMerchant(facilitatorUrl: string, payTo: string) {
  const server = new x402ResourceServer(
    new PrivStarkFacilitatorClient({ url: facilitatorUrl, apiKey: API_KEY }),
  ).register('shielded:devnet', new PrivStarkSchemeServer());
  const app = express();
  app.use(
    paymentMiddleware(
      privStarkRoutes({ 'GET /weather': { payTo, price: '$0.01', maxTimeoutSeconds: 1 } }),
      server,
    ),
  );
  app.get('/weather', (_req, res) => {
    res.json({ weather: 'sunny', by: 'rejecting' });
  });
  const http: Server = createServer(app);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(http.address() as { port: number }).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/**
 * The rejecting merchant allows one second, which the payer rounds up to the next whole minute
 * (EXPIRY_GRANULARITY_SECONDS): paid in a minute's last seconds, the payment would expire while it
 * is proved and handed to the pool node, and the pool would answer `payment_expired` instead of the
 * merchant's refusal. Waiting out a boundary this close leaves the payment a minute less that.
 */
async function clearOfExpiryBoundary(marginMs = 20_000): Promise<void> {
  const granule = EXPIRY_GRANULARITY_SECONDS * 1000;
  const left = granule - (Date.now() % granule);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 250));
}

// The child gets only what is named here, not vitest's test env: its wallet accepts this gridless
// pool as the suites' other wallets do (PRIV_STARK_MIN_EPOCH_MS, vitest.config.ts).
const env = () => ({
  POOL_URL: stack.poolUrl,
  PRIV_STARK_POLICY: policyPath,
  PRIV_STARK_MIN_EPOCH_MS: '1',
});
const args = ['--wallet', walletPath];

// biome-ignore lint/suspicious/noExplicitAny: tool results are JSON the assertions read freely
type Structured = Record<string, any>;
async function ok(name: string, input: Record<string, unknown> = {}): Promise<Structured> {
  const result = await mcp.call(name, input);
  expect(result.isError, textOf(result)).toBeFalsy();
  return result.structuredContent as Structured;
}
const balance = () => ok('get_balance');
/** What "nothing spent" means: the same total, nothing more pending, the same notes. */
const unspent = (b: Structured) => ({ total: b.total, pending: b.pending, notes: b.notes });
const counted = async () => BigInt((await ok('get_policy')).usage.counted_24h);

beforeAll(async () => {
  buildDist();
  core = await loadCore();
  [stack, foreign] = await Promise.all([startStack(core), startStack(core)]);
  const merchantWallet = await stack.wallet();
  merchantAddress = merchantWallet.address;
  const rejectingAddress = (await stack.wallet()).address;
  merchant = await expressMerchant(stack.facilitatorUrl, merchantAddress);
  stranger = await expressMerchant(stack.facilitatorUrl, (await stack.wallet()).address);
  rejecting = await shortTimeoutMerchant(foreign.facilitatorUrl, rejectingAddress);
  // The agent's wallet: three notes of 0.03 dUSD. This process lets go of it before the server opens it.
  const payer = await Wallet.create({ core, pool: stack.poolUrl, path: walletPath });
  for (let i = 0; i < 3; i++) {
    const ticket = await payer.depositTicket(NOTE.toString());
    await stack.operator.deposit(ticket.amount, ticket.pre);
  }
  await stack.settle();
  writeFileSync(
    policyPath,
    JSON.stringify({
      comment: 'test agent',
      maxPerPayment: '20000',
      maxPer24h: '35000',
      hosts: ['127.0.0.1'],
      recipients: [merchantAddress, rejectingAddress],
      networks: ['shielded:devnet'],
      assets: ['dUSD'],
    }),
  );
  chmodSync(policyPath, 0o644);
  mcp = await startStdio(args, env());
});

afterAll(async () => {
  await mcp?.close();
  await Promise.all([merchant?.close(), stranger?.close(), rejecting?.close()]);
  await Promise.all([stack?.close(), foreign?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('priv-stark mcp over stdio', () => {
  it('lists the ten tools, each with an input and an output schema', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'deposit',
      'get_balance',
      'get_policy',
      'list_payments',
      'merge_notes',
      'pay_and_fetch',
      'quote_payment',
      'split_note',
      'tighten_policy',
      'withdraw',
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
    const pay = tools.find((t) => t.name === 'pay_and_fetch')!;
    expect(Object.keys(pay.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['url', 'max_bytes', 'wait_ms']),
    );
    expect(await balance()).toMatchObject({
      spendable: (3n * NOTE).toString(),
      pending: '0',
      total: (3n * NOTE).toString(),
      notes: 3,
      asset: 'dUSD',
    });
  });

  it("a merchant whose facilitator rejects the payment: a tool error, and the note stays the wallet's (pending until expiry)", async () => {
    await clearOfExpiryBoundary();
    const result = await mcp.call('pay_and_fetch', { url: `${rejecting.url}/weather` });
    expect(errorCode(result), textOf(result)).toBe('payment_not_accepted');
    expect(textOf(result)).toMatch(/stays pending until the pool's clock passes its expiry/);
    // Nothing settled: the total is whole, the one note locked until the pool's clock passes the expiry.
    expect(await balance()).toMatchObject({
      total: (3n * NOTE).toString(),
      pending: NOTE.toString(),
      spendable: (2n * NOTE).toString(),
    });
    const { payments } = await ok('list_payments');
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({
      status: 'pending',
      amount: PRICE_ATOMIC.toString(),
      settlement_id: null,
      host: rejecting.url.slice(7),
    });
    rejectedExpiry = Date.parse(payments[0].expiry) / 1000;
    // A payment that left counts against the 24-hour limit until it is resolved.
    expect(await counted()).toBe(PRICE_ATOMIC);
  });

  it("quotes a 402 without paying: amount, asset, network, recipient, expiry, and the policy's answer", async () => {
    const quote = await ok('quote_payment', { url: `${merchant.url}/weather` });
    expect(quote).toMatchObject({
      status: 402,
      payment_required: true,
      selected: 0,
      payment: {
        amount: PRICE_ATOMIC.toString(),
        asset: 'dUSD',
        network: 'shielded:devnet',
        pay_to: merchantAddress,
      },
      allowed: true,
      refusal: null,
      wallet_can_pay: true,
    });
    expect(Date.parse(quote.payment.expiry)).toBeGreaterThan(Date.now());
    const premium = await ok('quote_payment', { url: `${merchant.url}/premium` });
    expect(premium).toMatchObject({
      allowed: false,
      refusal: { code: 'per_payment_limit', rule: 'maxPerPayment' },
    });
    expect((await ok('list_payments')).payments).toHaveLength(1);
  });

  it("pays within the policy: the content, and the settlement as the pool's log shows it", async () => {
    const before = await balance();
    const paid = await ok('pay_and_fetch', { url: `${merchant.url}/weather` });
    expect(paid).toMatchObject({
      status: 200,
      ok: true,
      paid: true,
      body_encoding: 'utf8',
      truncated: false,
    });
    expect(paid.content_type).toMatch(/^application\/json/);
    expect(JSON.parse(paid.body)).toEqual({ weather: 'sunny', by: 'express' });
    expect(paid.payment).toMatchObject({
      status: 'settled',
      amount: PRICE_ATOMIC.toString(),
      pay_to: merchantAddress,
      host: merchant.url.slice(7),
    });
    expect(paid.payment.settlement_id).toMatch(/^0x[0-9a-f]{64}$/);
    expect(paid.merchant_claim).toEqual({ success: true, transaction: paid.payment.settlement_id });
    // Compactly: the facilitator was asked to settle a reference to a handed-over proof.
    expect(merchant.settled).toEqual(['reference']);
    // The pool's own log has that settlement.
    const { events } = await stack.operator.events(0, 1000);
    expect(
      events.some(
        (e) => e.kind === 'settlement' && settlementId(e.nullifier) === paid.payment.settlement_id,
      ),
    ).toBe(true);
    expect(BigInt((await balance()).total)).toBe(BigInt(before.total) - PRICE_ATOMIC);
    expect(await counted()).toBe(2n * PRICE_ATOMIC);
  });

  it('bounds the response: max_bytes cuts the body and says so', async () => {
    const paid = await ok('pay_and_fetch', { url: `${merchant.url}/nothing-here`, max_bytes: 5 });
    expect(paid).toMatchObject({
      status: 404,
      paid: false,
      payment: null,
      bytes: 5,
      truncated: true,
    });
  });

  it('refuses a payment above the per-payment maximum: the rule named, nothing spent', async () => {
    const before = await balance();
    const result = await mcp.call('pay_and_fetch', { url: `${merchant.url}/premium` });
    expect(errorCode(result)).toBe('per_payment_limit');
    expect(textOf(result)).toMatch(/policy rule maxPerPayment/);
    expect(unspent(await balance())).toEqual(unspent(before));
    expect(await counted()).toBe(2n * PRICE_ATOMIC);
    expect((await ok('list_payments')).payments).toHaveLength(2);
  });

  it('refuses a host and a recipient the policy does not allow: nothing spent', async () => {
    const before = await balance();
    const host = await mcp.call('pay_and_fetch', {
      url: `${merchant.url.replace('127.0.0.1', 'localhost')}/weather`,
    });
    expect(errorCode(host)).toBe('host_not_allowed');
    expect(textOf(host)).toMatch(/policy rule hosts/);
    const recipient = await mcp.call('pay_and_fetch', { url: `${stranger.url}/weather` });
    expect(errorCode(recipient)).toBe('recipient_not_allowed');
    expect(textOf(recipient)).toMatch(/policy rule recipients/);
    expect(stranger.calls.settle).toBe(0);
    expect(unspent(await balance())).toEqual(unspent(before));
    expect(await counted()).toBe(2n * PRICE_ATOMIC);
  });

  it('reserves against the 24-hour limit before paying: of two concurrent payments with room for one, one is refused', async () => {
    await stack.settle(); // the change of the last payment in a checkpoint: two notes could pay
    const before = await balance();
    const results = await Promise.all(
      [0, 1].map(() => mcp.call('pay_and_fetch', { url: `${merchant.url}/weather` })),
    );
    const codes = results.map(errorCode).sort();
    expect(codes, results.map(textOf).join('\n')).toEqual([null, 'rolling_24h_limit']);
    const refused = results.find((r) => r.isError)!;
    expect(textOf(refused)).toMatch(/policy rule maxPer24h/);
    expect((results.find((r) => !r.isError)!.structuredContent as Structured).payment.status).toBe(
      'settled',
    );
    expect(BigInt((await balance()).total)).toBe(BigInt(before.total) - PRICE_ATOMIC);
    expect(await counted()).toBe(3n * PRICE_ATOMIC);
    // And the next one is over the limit too (30000 counted + 10000 > 35000): refused, nothing spent.
    const after = await balance();
    const next = await mcp.call('pay_and_fetch', { url: `${merchant.url}/report` });
    expect(errorCode(next)).toBe('rolling_24h_limit');
    expect(unspent(await balance())).toEqual(unspent(after));
    expect(merchant.served.get('GET /report') ?? 0).toBe(0);
  });

  it('tighten_policy lowers a limit (persisted) and refuses any attempt to raise or add, naming the rule', async () => {
    const raise = await mcp.call('tighten_policy', { max_per_payment: '50000' });
    expect(errorCode(raise)).toBe('policy_raise_refused');
    expect(textOf(raise)).toMatch(/policy rule maxPerPayment/);
    const raise24 = await mcp.call('tighten_policy', {
      max_per_24h: '35001',
      max_per_payment: '1',
    });
    expect(errorCode(raise24)).toBe('policy_raise_refused');
    expect(textOf(raise24)).toMatch(/maxPer24h/);
    const add = await mcp.call('tighten_policy', {
      restrict_hosts_to: ['127.0.0.1', 'example.com'],
    });
    expect(errorCode(add)).toBe('policy_raise_refused');
    expect(textOf(add)).toMatch(/policy rule hosts/);
    // None of the refused changes touched the policy (not even the lower max_per_payment of the second).
    expect((await ok('get_policy')).policy).toMatchObject({
      max_per_payment: '20000',
      max_per_24h: '35000',
      hosts: ['127.0.0.1'],
    });

    const tightened = await ok('tighten_policy', {
      max_per_payment: '15000',
      remove_assets: ['nothing'],
    });
    expect(tightened.changed).toEqual(['maxPerPayment']);
    expect(tightened.policy.max_per_payment).toBe('15000');
    const onDisk = JSON.parse(readFileSync(policyPath, 'utf8'));
    expect(onDisk).toMatchObject({
      comment: 'test agent',
      maxPerPayment: '15000',
      maxPer24h: '35000',
    });
    expect(statSync(policyPath).mode & 0o777).toBe(0o644);
  });

  it('keeps one server per ledger: a second one on the same wallet refuses to start', () => {
    const second = spawnSync(process.execPath, [MAIN, 'mcp', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env() },
      input: '',
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(second.status).not.toBe(0);
    expect(second.stderr).toMatch(/ledger_locked|in use by process/);
    expect(second.stdout).toBe('');
  });

  it('wrote nothing but MCP to stdout, and keeps the spend ledger private', () => {
    expect(mcp.errors).toEqual([]);
    expect(statSync(ledgerPath).mode & 0o777).toBe(0o600);
  });
});

describe('after a restart, over streamable HTTP', () => {
  let http: McpSession & { url: string };
  beforeAll(async () => {
    await mcp.close();
    http = await startHttp(args, env());
  });
  afterAll(async () => {
    await http?.close();
  });

  it('the 24-hour window and the tightened policy survive the restart', async () => {
    const result = await http.call('get_policy');
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      policy: { max_per_payment: '15000' },
      usage: { counted_24h: (3n * PRICE_ATOMIC).toString() },
    });
  });

  it('refuses browsers and other host names', async () => {
    const fromPage = await fetch(http.url, {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(fromPage.status).toBe(403);
    const port = new URL(http.url).port;
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          headers: { host: `evil.example:${port}`, 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    expect(rebound).toBe(403);
  });

  it("the rejected payment returns to the balance once the pool's clock passes its expiry", {
    timeout: 120_000,
  }, async () => {
    // The pool refuses any transition past the expiry (plus its margin) by its own clock; its next
    // event after that moment carries the time that releases the note.
    const releaseAt = rejectedExpiry * 1000 + 6_000;
    await new Promise((r) => setTimeout(r, Math.max(0, releaseAt - Date.now())));
    const bystander = await stack.wallet();
    await stack.fund(bystander, '1');
    const result = await http.call('get_balance');
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      pending: '0',
      total: (3n * NOTE - 2n * PRICE_ATOMIC).toString(),
    });
    const { payments } = (await http.call('list_payments')).structuredContent as Structured;
    expect(payments.map((p: Structured) => p.status)).toEqual(['settled', 'settled', 'expired']);
    // No longer counted: only the two settled payments are.
    expect(
      ((await http.call('get_policy')).structuredContent as Structured).usage.counted_24h,
    ).toBe((2n * PRICE_ATOMIC).toString());
    expect(http.errors).toEqual([]);
  });
});
