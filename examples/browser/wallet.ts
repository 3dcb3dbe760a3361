// A wallet in a web page: the WebAssembly core, the wallet kept in the page's IndexedDB, synced from
// the pool node (started with CORS for this page's origin), and the stock @x402/fetch paying a 402
// in one call with a proof built in the page.
//
//   npx esbuild examples/browser/wallet.ts --bundle --splitting --format=esm --external:'node:*' --outdir=examples/browser
//   cp node_modules/priv-stark/build/wasm/priv_stark.wasm examples/browser/   # served as application/wasm
//
// Serve examples/browser/ from the shop's own origin (the paid request is then same-origin; a shop
// on another origin must allow the PAYMENT-SIGNATURE request header and expose PAYMENT-RESPONSE
// through CORS). `?pool=` names the pool node (default http://127.0.0.1:4021); `?min-epoch-ms=`
// lowers the shortest epoch grid the wallet accepts from it (default the product's 10 s; only for a
// test or devnet pool: a finer grid would tell the operator which wallet paid). Proving takes a
// moment in WebAssembly and runs on the page's thread; run the wallet in a Web Worker to keep a
// busy page responsive.

import {
  IndexedDbWalletStore,
  loadWasmCore,
  payingFetch,
  settlementOf,
  Wallet,
} from 'priv-stark/client';

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const query = new URLSearchParams(location.search);
const pool = query.get('pool') ?? 'http://127.0.0.1:4021';
const minEpochMs = query.get('min-epoch-ms');
const status = (text: string) => (element('status').textContent = text);

const core = await loadWasmCore(new URL('priv_stark.wasm', location.href));
// A page cannot route its hand-overs through a proxy: where a merchant takes inline payments, pay
// inline and show the pool operator nothing (docs/compact-payments.md, privacy).
const options = {
  core,
  pool,
  ...(minEpochMs === null ? {} : { minEpochMs: Number(minEpochMs) }),
  store: new IndexedDbWalletStore('example'),
  transportPreference: 'inline',
} as const;
const wallet = await Wallet.open(options).catch(() => Wallet.create(options));

function show(): void {
  const { spendable, pending, unconfirmed } = wallet.balance();
  element('address').textContent = wallet.address;
  element('balance').textContent =
    `${spendable} spendable, ${pending} pending, ${unconfirmed} unconfirmed`;
}

/** Runs an action with the buttons disabled; errors are shown with their stable code. */
async function act(label: string, run: () => Promise<void>): Promise<void> {
  const buttons = [...document.querySelectorAll('button')];
  for (const b of buttons) b.disabled = true;
  status(`${label}…`);
  try {
    await run();
    status(`${label}: done`);
  } catch (error) {
    const code = (error as { code?: string }).code;
    status(
      `${label}: ${code ? `${code}: ` : ''}${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    for (const b of buttons) b.disabled = false;
    show();
  }
}

element('sync').onclick = () =>
  act('sync', async () => {
    await wallet.sync();
  });
element('ticket').onclick = () =>
  act('deposit ticket', async () => {
    const ticket = await wallet.depositTicket(element<HTMLInputElement>('amount').value.trim());
    element('pre').textContent = ticket.pre;
  });
element('pay').onclick = () =>
  act('pay', async () => {
    const response = await payingFetch(wallet)(element<HTMLInputElement>('url').value);
    const claimed = settlementOf(response);
    element('result').textContent =
      `HTTP ${response.status} ${await response.text()}${claimed ? ` · transaction ${claimed.transaction}` : ''}`;
  });

// Merge and exit run their proof on this page's thread (WebAssembly, about a second): a page that
// must stay responsive runs the wallet in a Web Worker.
element('merge').onclick = () =>
  act('merge', async () => {
    const receipt = await wallet.mergeNotes();
    element('transition').textContent = `merged · transaction ${receipt.transaction}`;
  });
element('exit').onclick = () =>
  act('withdraw', async () => {
    const receipt = await wallet.exit(
      element<HTMLInputElement>('destination').value.trim(),
      element<HTMLInputElement>('exit-amount').value.trim(),
    );
    element('transition').textContent =
      `withdrawal ${receipt.transaction} (paid out by the operator)`;
  });

show();
await act('sync', async () => {
  await wallet.sync();
});
