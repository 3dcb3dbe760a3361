// The WebAssembly build proves and verifies in a real browser: headless Chromium (Debian's
// `chromium`, driven by playwright-core) loads a page that fetches build/wasm/priv_stark.wasm,
// builds a spend proof with the core facade and the wallet's tree, verifies it, and refuses a
// tampered twin. `npm test` installs Debian's chromium when missing (scripts/system-deps.sh); a run
// without it is skipped with a warning, except under CI=true or PRIV_STARK_REQUIRE_BROWSER=1, where a
// missing browser fails.

import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p): p is string => !!p && existsSync(p));
const available = CHROMIUM !== undefined || process.env.CI === 'true' || process.env.PRIV_STARK_REQUIRE_BROWSER === '1';
if (!available) process.stderr.write('browser.test.ts: no Chromium found (apt-get install chromium, or CHROMIUM_PATH): skipped\n');

describe.skipIf(!available)('WebAssembly core in headless Chromium', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    if (!CHROMIUM) throw new Error('no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)');
    const bundle = await build({
      entryPoints: [fileURLToPath(new URL('./browser/entry.ts', import.meta.url))],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      external: ['node:*'],
      // Node's worker pool for WASM is imported lazily and never in a browser: leave it out.
      plugins: [{ name: 'no-node-pool', setup: (b) => b.onResolve({ filter: /wasm-pool\.js$/ }, (args) => ({ path: args.path, external: true })) }],
    });
    const js = bundle.outputFiles[0]!.text;
    const wasm = readFileSync(`${ROOT}build/wasm/priv_stark.wasm`);
    server = createServer((request, response) => {
      if (request.url === '/bundle.js') return response.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
      if (request.url === '/priv_stark.wasm') return response.writeHead(200, { 'content-type': 'application/wasm' }).end(wasm);
      return response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><script type="module" src="/bundle.js"></script>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  }, 120_000);
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('proves a spend, verifies it and refuses a tampered twin', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--headless=new'] });
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      await page.goto(url);
      await page.waitForTimeout(100);
      expect(problems).toEqual([]);
      await page.waitForFunction(() => 'result' in globalThis, undefined, { timeout: 30_000 });
      const result = (await page.evaluate(() => (globalThis as unknown as { result: Promise<unknown> }).result)) as Record<string, unknown>;
      expect(result.error).toBeUndefined();
      expect(result).toMatchObject({ backend: 'wasm', samePath: true, rootMatches: true, nullifierMatches: true, verified: { ok: true }, tampered: { ok: false } });
      expect(result.userAgent).toMatch(/Chrome/);
      expect(result.proofBytes).toBeGreaterThan(10_000);
    } finally {
      await browser.close();
    }
  }, 180_000);
});
