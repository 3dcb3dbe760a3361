// The payout key's secrets never reach the log, at debug level: `priv-stark pool serve` in a
// process of its own, wired as an operator runs it with the payout key, logging at debug level
// (LOG_LEVEL=debug, pino), pays an exit through the escrow on the shared node; everything it wrote
// — stdout and stderr — holds the payout's transaction hash, and neither the payout key (nor the
// acceptor's), nor the transaction's signature, nor its raw signed bytes (hex or base64). The
// twin: the same scan finds each of them once planted in a line of that log.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type Hex, parseTransaction } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';

import { privStarkEscrowAbi } from '../../src/chain/contract-artifacts.js';
import { loadCore } from '../../src/core/index.js';
import { openStore } from '../../src/ledger/index.js';
import { openPayoutJournal } from '../../src/ledger/open-payout-journal.js';
import { openChain } from '../../src/service/chain-wiring.js';
import { send } from '../../testkit/chain.js';
import { caip10, fundCustody, seedWithdrawal, tokenBalance } from '../../testkit/payouts.js';
import { CUSTODY, freshAddress } from './payout-harness.js';
import { chainArgs, type PoolProcess, poolProcess } from './pool-process.js';
import { escrowFixture, sharedChain } from './shared.js';
import { acceptorKey, keyFileOf } from './watcher-harness.js';

/** A hex value as it would be written without its `0x`, leading zero bytes dropped (as RLP does). */
const digits = (hex: string) =>
  hex
    .replace(/^0x/, '')
    .replace(/^(00)+/, '')
    .toLowerCase();

/** The names of the `secrets` found anywhere in `log`, whatever the case of its hex. */
function secretsIn(log: string, secrets: Readonly<Record<string, string>>): string[] {
  const text = log.toLowerCase();
  return Object.entries(secrets)
    .filter(([, secret]) => text.includes(secret.toLowerCase()))
    .map(([name]) => name);
}

const dirs: string[] = [];
const nodes: PoolProcess[] = [];
afterAll(async () => {
  for (const node of nodes) if (node.child.exitCode === null) node.child.kill('SIGKILL');
  await Promise.all(nodes.map((node) => node.exited));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the payout key’s secrets at debug level', () => {
  it('a paid exit leaves its hash in the log and no key, signature or raw transaction; planted, the scan finds each', async () => {
    const chain = sharedChain();
    const core = await loadCore();
    const f = await escrowFixture(chain);
    await fundCustody(chain, f, CUSTODY);
    const acceptor = await acceptorKey(f);
    const payoutKey = generatePrivateKey();
    const payer = privateKeyToAccount(payoutKey).address;
    await chain.test.setBalance({ address: payer, value: 10n ** 19n });
    const escrow = { address: f.escrow, abi: privStarkEscrowAbi };
    const role = await chain.public.readContract({ ...escrow, functionName: 'PAYOUT_ROLE' });
    await send(chain, f.admin, { ...escrow, functionName: 'grantRole', args: [role, payer] });
    const payoutFile = keyFileOf(payoutKey);
    const keyFiles = [`acceptor=${acceptor.file}`, `payout=${payoutFile}`];

    // The store bound to the escrow (as the node binds it) holds the exit before the node starts.
    const dataDir = mkdtempSync(join(tmpdir(), 'priv-stark-payout-log-'));
    dirs.push(dataDir);
    const to = freshAddress();
    const store = await openStore(core, { dataDir });
    const bound = await openChain(
      { rpcUrl: chain.url, escrow: f.escrow, keyFiles, finality: { confirmations: 1 } },
      store,
      { dataDir },
    );
    const id = await seedWithdrawal(store, caip10(chain, to), 2_500n);
    await bound.close();
    await store.close();

    const node = poolProcess(
      ['--port', '0', '--data-dir', dataDir, '--confirmations', '1'].concat(
        chainArgs(chain.url, f.escrow, keyFiles),
      ),
      {
        LOG_LEVEL: 'debug',
        PAYOUT_POLL_INTERVAL_MS: '100',
        CHAIN_POLL_INTERVAL_MS: '100',
        POOL_OPERATOR_TOKEN: 'payout-log-operator-token-0123',
      },
    );
    nodes.push(node);
    await node.waitFor(
      (l) => l.msg === 'payout step recorded' && l.withdrawalId === id && l.status === 'paid',
      'the exit paid',
    );
    expect(await node.stop()).toBe(0);
    expect(await tokenBalance(chain, f.token, to)).toBe(2_500n);

    const journal = openPayoutJournal({ dataDir });
    const [attempt] = await journal.attempts(`eip155:${chain.chainId}:${payer}`, id);
    await journal.close();
    const [signed] = attempt!.transactions;
    const transaction = parseTransaction(signed!.raw as Hex);
    const raw = signed!.raw.replace(/^0x/, '');
    const secrets = {
      'payout key': digits(payoutKey),
      'acceptor key': digits(readFileSync(acceptor.file, 'utf8').trim()),
      'signature r': digits(transaction.r!),
      'signature s': digits(transaction.s!),
      'raw transaction': raw,
      'raw transaction (base64)': Buffer.from(raw, 'hex').toString('base64'),
    };

    const log = node.output();
    expect(log.toLowerCase()).toContain(signed!.hash.toLowerCase());
    expect(secretsIn(log, secrets)).toEqual([]);

    // The twin: each secret planted in one line of the same log is found (the raw bytes hold the
    // signature too).
    for (const [name, secret] of Object.entries(secrets)) {
      const planted = `${log}${JSON.stringify({ level: 20, msg: 'planted', value: secret })}\n`;
      expect(secretsIn(planted, secrets)).toContain(name);
    }
    const withRaw = `${log}${JSON.stringify({ level: 20, msg: 'planted', raw: signed!.raw })}\n`;
    expect(secretsIn(withRaw, secrets)).toEqual(
      expect.arrayContaining(['raw transaction', 'signature r', 'signature s']),
    );
  });
});
