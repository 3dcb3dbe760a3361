// The client in a real browser. Headless Chromium (Debian's `chromium`, driven by playwright-core)
// loads pages bundled for browsers (test/e2e/browser/bundle.ts: no Node built-in imported up front,
// no Node global in any project module the page loads):
// 1. the WebAssembly core proves a spend with the wallet's tree, verifies it, refuses a tampered twin;
// 2. a wallet kept in IndexedDB syncs from a real pool node on loopback (cross-origin, through the
//    node's opt-in CORS), proves with the WebAssembly core and pays a real shop — stock
//    @x402/express on Node's default header limit, in front of a real facilitator — through the
//    stock @x402/fetch, compactly: the page hands its proof over to the pool node (cross-origin,
//    with a preflight) and sends a header within 4096 bytes; the balance moves only as the pool's
//    log says, and the wallet opens again from IndexedDB.
// `npm test` installs Debian's chromium when missing (scripts/system-deps.sh); a run without it is
// skipped with a warning, except under CI=true or PRIV_STARK_REQUIRE_BROWSER=1, where a missing
// browser fails. The bundle checks run without a browser.

import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';

import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Wallet } from '../../src/client/index.js';
import { loadCore, ownerOf, type PrivStarkCore, randomDigest } from '../../src/core/index.js';
import { COMPACT_HEADER_MAX_BYTES } from '../../src/scheme/index.js';
import { bundleForBrowser, nodeGlobalsIn } from './browser/bundle.js';
import { type BrowserStack, startBrowserStack } from './browser/stack.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (p): p is string => !!p && existsSync(p),
);
const available =
  CHROMIUM !== undefined ||
  process.env.CI === 'true' ||
  process.env.PRIV_STARK_REQUIRE_BROWSER === '1';
if (!available)
  process.stderr.write(
    'browser.test.ts: no Chromium found (apt-get install chromium, or CHROMIUM_PATH): skipped\n',
  );
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

describe('the client bundled for browsers', () => {
  it('loads nothing from Node up front: the wallet, its stores, the scheme client, @x402/fetch, the WebAssembly core', async () => {
    const { entry, files, projectModules } = await bundleForBrowser(`${ROOT}src/client/index.ts`);
    for (const module of [
      'src/client/wallet.ts',
      'src/client/indexeddb-store.ts',
      'src/client/scheme.ts',
      'src/client/fetch.ts',
      'src/client/wasm-core.ts',
      'src/scheme/encoding.ts',
      'src/core/facade.ts',
      'src/core/create-core.ts',
    ]) {
      expect(projectModules).toContain(module);
    }
    // The Node-only paths stay out of what a page loads: the native loader entirely, the core's
    // worker threads (WebAssembly in Node) in a chunk loaded on demand.
    expect(projectModules).not.toContain('src/core/native.ts');
    expect(projectModules).not.toContain('src/core/wasm-threads.ts');
    expect(Object.keys(files).some((path) => path.startsWith('chunks/wasm-threads-'))).toBe(true);
    expect(files[entry]).toContain('wrapFetchWithPayment');
  }, 60_000);

  it('refuses a static Node import and a Node global', async () => {
    // The core's index loads the native addon (Node only): not for browsers.
    await expect(bundleForBrowser(`${ROOT}src/core/index.ts`)).rejects.toThrow(
      /Node built-in "node:(fs|module|url)" imported by src\/core\/native\.ts/,
    );
    expect(nodeGlobalsIn([here('./browser/fixtures/node-global.ts')])).toEqual([
      'test/e2e/browser/fixtures/node-global.ts:3 Buffer',
    ]);
  }, 60_000);
});

describe.skipIf(!available)('the client in headless Chromium', () => {
  let core: PrivStarkCore;
  let browser: Browser;
  let coreServer: Server;
  let coreUrl: string;
  let stack: BrowserStack;
  let shop: Wallet;

  beforeAll(async () => {
    if (!CHROMIUM)
      throw new Error('no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)');
    core = await loadCore();
    const wasm = readFileSync(`${ROOT}build/wasm/priv_stark.wasm`);
    const [corePage, walletPage, examplePage] = await Promise.all([
      bundleForBrowser(here('./browser/entry.ts')),
      bundleForBrowser(here('./browser/wallet-entry.ts')),
      // The example imports the package by name: here, its sources.
      bundleForBrowser(`${ROOT}examples/browser/wallet.ts`, {
        alias: { 'priv-stark/client': `${ROOT}src/client/index.ts` },
      }),
    ]);
    coreServer = createServer((request, response) => {
      const js = corePage.files[(request.url ?? '/').slice(1)];
      if (js !== undefined)
        return response.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
      if (request.url === '/priv_stark.wasm')
        return response.writeHead(200, { 'content-type': 'application/wasm' }).end(wasm);
      return response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<!doctype html><script type="module" src="/${corePage.entry}"></script>`);
    });
    await new Promise<void>((resolve) => coreServer.listen(0, '127.0.0.1', () => resolve()));
    coreUrl = `http://127.0.0.1:${(coreServer.address() as { port: number }).port}/`;

    // The shop's own wallet stays in Node (native core); the page pays its address.
    const html = `<!doctype html><script>globalThis.config = __CONFIG__;</script><script type="module" src="/${walletPage.entry}"></script>`;
    const shopKey = randomDigest();
    const exampleHtml = readFileSync(`${ROOT}examples/browser/index.html`, 'utf8');
    expect(exampleHtml).toContain(`src="${examplePage.entry}"`);
    stack = await startBrowserStack(core.encodeAddress(ownerOf(core, shopKey)), {
      page: { html, files: walletPage.files },
      example: { html: exampleHtml, files: examplePage.files },
      wasm,
    });
    shop = await Wallet.create({ core, pool: stack.poolUrl, sk: shopKey });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--headless=new'],
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    await new Promise<void>((resolve) =>
      coreServer ? coreServer.close(() => resolve()) : resolve(),
    );
  });

  /**
   * What a page reported, the requests it made that were not answered 2xx (favicon aside), and
   * every answer it got, as `<status> <method> <origin><path>`.
   */
  async function resultOf(
    url: string,
    timeout: number,
  ): Promise<{ result: Record<string, unknown>; refused: string[]; answers: string[] }> {
    const page = await browser.newPage();
    const problems: string[] = [];
    const refused: string[] = [];
    const answers: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      // A refused request is also logged to the console; those are checked by status below.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        problems.push(message.text());
    });
    page.on('response', (response) => {
      const { origin, pathname: path } = new URL(response.url());
      answers.push(`${response.status()} ${response.request().method()} ${origin}${path}`);
      if (response.status() >= 300 && path !== '/favicon.ico')
        refused.push(`${response.status()} ${response.request().method()} ${path}`);
    });
    await page.goto(url);
    await page.waitForFunction(() => 'result' in globalThis, undefined, { timeout });
    const result = (await page.evaluate(
      () => (globalThis as unknown as { result: Promise<unknown> }).result,
    )) as Record<string, unknown>;
    expect(result.error).toBeUndefined();
    expect(problems).toEqual([]);
    await page.close();
    return { result, refused, answers };
  }

  it('the WebAssembly core proves a spend, verifies it and refuses a tampered twin', async () => {
    const { result, refused } = await resultOf(coreUrl, 60_000);
    expect(refused).toEqual([]);
    expect(result).toMatchObject({
      backend: 'wasm',
      samePath: true,
      rootMatches: true,
      nullifierMatches: true,
      verified: { ok: true },
      tampered: { ok: false },
    });
    expect(result.userAgent).toMatch(/Chrome/);
    expect(result.proofBytes).toBeGreaterThan(10_000);
  }, 120_000);

  it('a wallet in IndexedDB syncs from the pool node, proves with WebAssembly and pays the shop through @x402/fetch', async () => {
    const { result, refused, answers } = await resultOf(`${stack.shopUrl}/`, 240_000);
    expect(result.backend).toBe('wasm');
    // The only request not answered 2xx is the first, unpaid one.
    expect(refused).toEqual(['402 GET /weather']);
    // Compactly: the page handed the proof over to the pool node across origins (the node allows
    // the shop's origin, preflight included), then sent one header within the compact bound.
    expect(answers.filter((a) => a.endsWith(`${stack.poolUrl}/proofs`))).toEqual([
      `201 POST ${stack.poolUrl}/proofs`,
    ]);
    expect(result.signatures).toEqual([
      {
        bytes: expect.any(Number),
        proofRef: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        inline: false,
      },
    ]);
    expect((result.signatures as { bytes: number }[])[0]!.bytes).toBeLessThanOrEqual(
      COMPACT_HEADER_MAX_BYTES,
    );
    expect(stack.settled()).toEqual(['reference']);
    // Funded with two notes through the operator; both found by the page's own sync.
    expect(result.funded).toEqual({
      spendable: '150000',
      pending: '0',
      unconfirmed: '0',
      total: '150000',
    });
    // One call: 402, proof in the page, paid request, 200 from the stock middleware.
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body as string)).toEqual({ weather: 'sunny', by: 'the shop' });
    expect(stack.served()).toBe(1);
    // The smallest covering note (50000) is locked until the pool's log speaks; the header changes nothing.
    expect(result.afterPayment).toEqual({
      spendable: '100000',
      pending: '50000',
      unconfirmed: '0',
      total: '150000',
    });
    expect(result.pendingRecord).toEqual([
      { amount: '10000', status: 'pending', changeValue: '40000' },
    ]);
    // Settled from the log: 100000 + the 40000 change.
    expect(result.settled).toEqual({
      spendable: '140000',
      pending: '0',
      unconfirmed: '0',
      total: '140000',
    });
    const claimed = result.claimed as { success: boolean; transaction: string; network: string };
    expect(claimed).toMatchObject({ success: true, network: 'shielded:devnet' });
    expect(result.settlementId).toBe(claimed.transaction);
    // The pool's log holds that settlement, and the shop's wallet (Node, native core) finds the 10000.
    const events = (await (await fetch(`${stack.poolUrl}/events?after=0&limit=100`)).json()) as {
      events: { kind: string; settlementId?: string; amount: string }[];
    };
    expect(events.events.filter((e) => e.kind === 'settlement')).toEqual([
      expect.objectContaining({ settlementId: claimed.transaction, amount: '10000' }),
    ]);
    await shop.sync();
    expect(shop.balance().total).toBe(10_000n);
    // Opened again from IndexedDB: the same balance and leaves, nothing new to read.
    expect(result.reopened).toMatchObject({
      balance: result.settled,
      sameLeaves: true,
      resyncLeaves: 0,
      payments: ['settled'],
    });
  }, 300_000);

  it('the pool node answers CORS only for the allowed origin, on its read routes and the hand-over', async () => {
    const allowed = await fetch(`${stack.poolUrl}/state`, { headers: { origin: stack.shopUrl } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe(stack.shopUrl);
    const other = await fetch(`${stack.poolUrl}/state`, {
      headers: { origin: 'http://127.0.0.1:9' },
    });
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const deposit = await fetch(`${stack.poolUrl}/deposit`, {
      method: 'POST',
      headers: { origin: stack.shopUrl, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(deposit.headers.get('access-control-allow-origin')).toBeNull();
    // The hand-over's preflight: the shop's pages may POST a JSON body; another origin may not.
    const preflight = (origin: string) =>
      fetch(`${stack.poolUrl}/proofs`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
    const shopPreflight = await preflight(stack.shopUrl);
    expect(shopPreflight.status).toBe(204);
    expect(shopPreflight.headers.get('access-control-allow-origin')).toBe(stack.shopUrl);
    expect(shopPreflight.headers.get('access-control-allow-methods')).toBe('POST');
    expect(shopPreflight.headers.get('access-control-allow-headers')).toBe('content-type');
    const otherPreflight = await preflight('http://127.0.0.1:9');
    expect(otherPreflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('the browser example: a deposit ticket for the operator, sync, and a paid fetch, through its page', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    try {
      const text = (id: string) => page.locator(`#${id}`).textContent();
      const done = (label: string) =>
        page.waitForFunction(
          (l) => document.getElementById('status')?.textContent?.startsWith(`${l}:`),
          label,
          { timeout: 120_000 },
        );
      // The stack's pool runs without an epoch grid: the page is told to accept it.
      await page.goto(
        `${stack.shopUrl}/example/?pool=${encodeURIComponent(stack.poolUrl)}&min-epoch-ms=1`,
      );
      await done('sync');
      expect(await text('status')).toBe('sync: done');
      expect(await text('address')).toMatch(/^pstark1/);

      await page.fill('#amount', '30000');
      await page.click('#ticket');
      await done('deposit ticket');
      const pre = (await text('pre'))!;
      expect(pre).toMatch(/^0x[0-9a-f]{64}$/);
      await stack.operator.deposit('30000', pre);
      for (
        let attempt = 0;
        attempt < 300 && !(await text('balance'))!.startsWith('30000 spendable');
        attempt++
      ) {
        await page.click('#sync');
        await done('sync');
      }
      expect(await text('balance')).toBe('30000 spendable, 0 pending, 0 unconfirmed');

      await page.fill('#url', '/weather');
      await page.click('#pay');
      await done('pay');
      expect(await text('status')).toBe('pay: done');
      expect(await text('result')).toMatch(
        /^HTTP 200 \{"weather":"sunny","by":"the shop"\} · transaction 0x[0-9a-f]+$/,
      );
      // Pending until the pool's log says otherwise.
      expect(await text('balance')).toBe('0 spendable, 30000 pending, 0 unconfirmed');
      // Compactly, like the page before it: its proof handed over from the example's page.
      expect(stack.settled()).toEqual(['reference', 'reference']);

      // A withdrawal from the page: the transition proven in WebAssembly, posted to the pool node
      // cross-origin (its CORS preflight on POST /transitions). Its twin: an unchecksummed address
      // is refused by the wallet before anything is proven.
      for (
        let attempt = 0;
        attempt < 300 && !(await text('balance'))!.startsWith('20000 spendable');
        attempt++
      ) {
        await page.click('#sync');
        await done('sync');
      }
      await page.fill('#destination', 'eip155:8453:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed');
      await page.fill('#exit-amount', '5000');
      await page.click('#exit');
      await done('withdraw');
      expect(await text('status')).toMatch(/^withdraw: unpayable_requirements: .*EIP-55/);
      await page.fill('#destination', 'eip155:8453:0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
      await page.click('#exit');
      await done('withdraw');
      expect(await text('status')).toBe('withdraw: done');
      expect(await text('transition')).toMatch(/^withdrawal 0x[0-9a-f]{64} /);
      const feed = await stack.operator.withdrawals(0);
      expect(feed.withdrawals.map((w) => w.amount)).toEqual(['5000']);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 300_000);
});
