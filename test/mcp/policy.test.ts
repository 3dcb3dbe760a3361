// The spending policy: strict parsing of the operator's file, host matching, the rule each refusal
// names, and tightening — which never allows anything the policy did not (fast-check), and refuses
// any raise or addition without changing anything. The policy file: re-read when the operator
// edits it, refused when others may write it, rewritten in place by a tightening.

import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';

import { PolicyFileError, PolicyRefusal, ToolError } from '../../src/mcp/errors.js';
import {
  checkPayment,
  checkWithdrawal,
  hostAllowed,
  parsePolicy,
  type Policy,
  type PolicyTightening,
  tightenPolicy,
} from '../../src/mcp/policy.js';
import { PolicyFile } from '../../src/mcp/policy-file.js';

const ALICE = 'pstark1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq';
const BOB = 'pstark1zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz';

const base = {
  maxPerPayment: '20000',
  maxPer24h: '100000',
  hosts: ['api.example.com', '127.0.0.1:3000', '*.shop.test'],
  recipients: [ALICE],
  networks: ['shielded:devnet'],
  assets: ['dUSD'],
};

function refusalOf(run: () => unknown): PolicyRefusal | ToolError | null {
  try {
    run();
    return null;
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
}

describe('parsePolicy', () => {
  it("reads the operator's file: amounts as atomic units, lists normalised", () => {
    const policy = parsePolicy({
      ...base,
      maxPerPayment: 20000,
      hosts: ['API.Example.com', 'api.example.com'],
      recipients: '*',
    });
    expect(policy).toMatchObject({
      maxPerPayment: 20000n,
      maxPer24h: 100000n,
      hosts: ['api.example.com'],
      recipients: '*',
      networks: ['shielded:devnet'],
      assets: ['dUSD'],
    });
  });

  it('reads examples/mcp-policy.json', () => {
    const example = JSON.parse(
      readFileSync(new URL('../../examples/mcp-policy.json', import.meta.url), 'utf8'),
    );
    expect(parsePolicy(example)).toMatchObject({
      maxPerPayment: 20000n,
      hosts: ['127.0.0.1:3000', '*.example.com'],
      recipients: '*',
    });
  });

  it.each([
    [
      'an unknown key (a typo must not lift a limit)',
      { ...base, maxPerPaymnet: '1' },
      /unknown key "maxPerPaymnet"/,
    ],
    ['a missing rule', { ...base, maxPer24h: undefined }, /"maxPer24h" is required|atomic units/],
    ['a fractional amount', { ...base, maxPerPayment: '1.5' }, /maxPerPayment/],
    ['a negative amount', { ...base, maxPerPayment: -1 }, /maxPerPayment/],
    ['a padded amount', { ...base, maxPer24h: '0100' }, /maxPer24h/],
    ['an amount of 2^62', { ...base, maxPer24h: (2n ** 62n).toString() }, /maxPer24h/],
    ['"*" for networks', { ...base, networks: '*' }, /"networks" must be a list/],
    ['a URL as a host', { ...base, hosts: ['https://api.example.com'] }, /"hosts" has an entry/],
    ['a port out of range', { ...base, hosts: ['example.com:70000'] }, /"hosts" has an entry/],
    ['a wildcard over an IP address', { ...base, hosts: ['*.127.0.0.1'] }, /"hosts" has an entry/],
    [
      'a recipient that is not an address',
      { ...base, recipients: ['0xabc'] },
      /"recipients" has an entry/,
    ],
    ['not an object', [base], /expected a JSON object/],
  ])('refuses %s', (_name, value, message) => {
    const clean = JSON.parse(JSON.stringify(value));
    expect(() => parsePolicy(clean)).toThrow(PolicyFileError);
    expect(() => parsePolicy(clean)).toThrow(message);
  });
});

describe('hosts', () => {
  const policy = parsePolicy(base);
  it.each([
    ['https://api.example.com/x', true],
    ['http://api.example.com:8080/x', true],
    ['https://API.EXAMPLE.COM/x', true],
    ['https://example.com/x', false],
    ['https://evil.api.example.com/x', false],
    ['http://127.0.0.1:3000/x', true],
    ['http://127.0.0.1:3001/x', false],
    ['http://127.0.0.1/x', false],
    ['https://a.shop.test/x', true],
    ['https://a.b.shop.test:9/x', true],
    ['https://shop.test/x', false],
    ['ftp://api.example.com/x', false],
  ])('%s → %s', (url, allowed) => {
    expect(hostAllowed(policy, new URL(url))).toBe(allowed);
  });
  it('a port in an entry is the effective port (80/443 when the URL names none)', () => {
    const p = parsePolicy({ ...base, hosts: ['example.com:443', '[::1]:8080'] });
    expect(hostAllowed(p, new URL('https://example.com/'))).toBe(true);
    expect(hostAllowed(p, new URL('http://example.com/'))).toBe(false);
    expect(hostAllowed(p, new URL('http://[::1]:8080/'))).toBe(true);
  });
});

describe('checkPayment', () => {
  const policy = parsePolicy(base);
  const intent = {
    url: new URL('https://api.example.com/r'),
    network: 'shielded:devnet',
    asset: 'dUSD',
    payTo: ALICE,
    amount: 20000n,
  };
  it('allows a payment within every rule', () => {
    expect(checkPayment(policy, intent)).toBeNull();
  });
  it.each([
    ['host_not_allowed', 'hosts', { url: new URL('https://other.example/r') }],
    ['network_not_allowed', 'networks', { network: 'shielded:mainnet' }],
    ['asset_not_allowed', 'assets', { asset: 'USDC' }],
    ['recipient_not_allowed', 'recipients', { payTo: BOB }],
    ['per_payment_limit', 'maxPerPayment', { amount: 20001n }],
  ])('%s names the rule %s', (code, rule, change) => {
    const refusal = checkPayment(policy, { ...intent, ...change });
    expect(refusal).toBeInstanceOf(PolicyRefusal);
    expect(refusal).toMatchObject({ code, rule });
  });
  it('compares recipients case-insensitively (bech32m has one meaning per address)', () => {
    expect(checkPayment(policy, { ...intent, payTo: ALICE.toUpperCase() })).toBeNull();
  });
});

describe('tightenPolicy', () => {
  const policy = parsePolicy(base);
  it('lowers limits and narrows lists', () => {
    const { policy: next, changed } = tightenPolicy(policy, {
      maxPerPayment: 5000n,
      maxPer24h: 100000n,
      restrictHostsTo: ['a.shop.test', '127.0.0.1:3000'],
      removeHosts: ['127.0.0.1:3000'],
      removeNetworks: ['shielded:devnet'],
    });
    expect(next).toMatchObject({
      maxPerPayment: 5000n,
      maxPer24h: 100000n,
      hosts: ['a.shop.test'],
      networks: [],
    });
    expect(changed.sort()).toEqual(['hosts', 'maxPerPayment', 'networks']);
  });

  it.each<[string, PolicyTightening, string, string]>([
    [
      'a higher per-payment maximum',
      { maxPerPayment: 20001n },
      'policy_raise_refused',
      'maxPerPayment',
    ],
    [
      'a higher 24-hour maximum, even beside a lower one',
      { maxPerPayment: 1n, maxPer24h: 100001n },
      'policy_raise_refused',
      'maxPer24h',
    ],
    [
      'a host not allowed now',
      { restrictHostsTo: ['api.example.com', 'evil.example'] },
      'policy_raise_refused',
      'hosts',
    ],
    [
      'a wildcard wider than the host it replaces',
      { restrictHostsTo: ['*.example.com'] },
      'policy_raise_refused',
      'hosts',
    ],
    [
      'any port for a host allowed on one',
      { restrictHostsTo: ['127.0.0.1'] },
      'policy_raise_refused',
      'hosts',
    ],
    [
      'a recipient not allowed now',
      { restrictRecipientsTo: [BOB] },
      'policy_raise_refused',
      'recipients',
    ],
    [
      'removing a host a wildcard still allows',
      { removeHosts: ['a.shop.test'] },
      'policy_tighten_unsupported',
      'hosts',
    ],
  ])('refuses %s, naming the rule, and changes nothing', (_name, change, code, rule) => {
    const refusal = refusalOf(() => tightenPolicy(policy, change));
    expect(refusal).toMatchObject({ code, rule });
    expect(refusal!.message).toMatch(/policy file|still be allowed/);
    expect(parsePolicy(base)).toEqual(policy);
  });

  it('cannot remove one entry from "*"; restricting "*" to a list works', () => {
    const open = parsePolicy({ ...base, hosts: '*', recipients: '*' });
    expect(refusalOf(() => tightenPolicy(open, { removeHosts: ['evil.example'] }))).toMatchObject({
      code: 'policy_tighten_unsupported',
      rule: 'hosts',
    });
    expect(refusalOf(() => tightenPolicy(open, { removeRecipients: [BOB] }))).toMatchObject({
      code: 'policy_tighten_unsupported',
      rule: 'recipients',
    });
    expect(
      tightenPolicy(open, { restrictHostsTo: ['x.example'], restrictRecipientsTo: [BOB] }).policy,
    ).toMatchObject({ hosts: ['x.example'], recipients: [BOB] });
  });

  it('refuses malformed entries', () => {
    expect(refusalOf(() => tightenPolicy(policy, { removeHosts: ['not a host'] }))).toMatchObject({
      code: 'invalid_policy_change',
    });
  });

  // Generators over a small universe, so generated payments often hit the generated entries.
  const hostNames = ['a.test', 'b.a.test', 'c.test', '127.0.0.1'];
  const hostEntry = fc
    .tuple(
      fc.constantFrom(...hostNames),
      fc.boolean(),
      fc.option(fc.constantFrom(80, 443, 3000), { nil: null }),
    )
    .map(([h, wild, port]) => {
      const host = wild && h !== '127.0.0.1' ? `*.${h}` : h;
      return port === null ? host : `${host}:${port}`;
    });
  const recipients = [ALICE, BOB, 'pstark1xyxyxyxyxy'];
  const destinations = [
    'eip155:8453:0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    'eip155:8453:0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  ];
  const amount = fc.bigInt({ min: 0n, max: 50_000n });
  const policyArb = fc.record({
    maxPerPayment: amount,
    maxPer24h: amount,
    hosts: fc.oneof(fc.constant('*' as const), fc.uniqueArray(hostEntry, { maxLength: 5 })),
    recipients: fc.oneof(
      fc.constant('*' as const),
      fc.uniqueArray(fc.constantFrom(...recipients), { maxLength: 3 }),
    ),
    networks: fc.uniqueArray(fc.constantFrom('shielded:devnet', 'shielded:other'), {
      maxLength: 2,
    }),
    assets: fc.uniqueArray(fc.constantFrom('dUSD', 'dEUR'), { maxLength: 2 }),
    withdrawalDestinations: fc.uniqueArray(fc.constantFrom(...destinations), { maxLength: 2 }),
  });
  // Entries near the policy's own (the same host without its port, as a wildcard, on another port)
  // are where a wrong "is this narrower?" answer would hide.
  const near = (hosts: readonly string[] | '*') => {
    const variants = (hosts === '*' ? [] : hosts).flatMap((entry) => {
      const [host, port] = entry.split(':') as [string, string | undefined];
      const bare = host.replace(/^\*\./, '');
      return [
        entry,
        host,
        `*.${bare}`,
        `${bare}:3000`,
        port === undefined ? `${host}:80` : `${bare}:${port}`,
      ];
    });
    return variants.length === 0 ? hostEntry : fc.oneof(hostEntry, fc.constantFrom(...variants));
  };
  // Limits at or below the policy's (raises have their own property), so most changes apply.
  const changeArb = (policy: {
    hosts: readonly string[] | '*';
    maxPerPayment: bigint;
    maxPer24h: bigint;
  }) =>
    fc.record(
      {
        maxPerPayment: fc.bigInt({ min: 0n, max: policy.maxPerPayment }),
        maxPer24h: fc.bigInt({ min: 0n, max: policy.maxPer24h }),
        restrictHostsTo: fc.uniqueArray(near(policy.hosts), { maxLength: 4 }),
        removeHosts: fc.uniqueArray(near(policy.hosts), { maxLength: 3 }),
        restrictRecipientsTo: fc.uniqueArray(fc.constantFrom(...recipients), { maxLength: 3 }),
        removeRecipients: fc.uniqueArray(fc.constantFrom(...recipients), { maxLength: 2 }),
        removeNetworks: fc.uniqueArray(fc.constantFrom('shielded:devnet', 'shielded:other'), {
          maxLength: 2,
        }),
        removeAssets: fc.uniqueArray(fc.constantFrom('dUSD', 'dEUR'), { maxLength: 2 }),
        removeWithdrawalDestinations: fc.uniqueArray(fc.constantFrom(...destinations), {
          maxLength: 2,
        }),
      },
      { requiredKeys: [] },
    );
  // Payments that pass every rule but the one under test often: the policy's own networks, assets
  // and recipients, small amounts; hosts and ports from the universe.
  const pick = <T>(list: readonly T[] | '*', universe: readonly T[]) =>
    fc.constantFrom(...(list === '*' || list.length === 0 ? universe : list));
  const intentArb = (policy: Policy) =>
    fc.record({
      url: fc
        .tuple(
          fc.constantFrom('http', 'https'),
          fc.constantFrom(...hostNames, 'x.b.a.test', 'd.c.test'),
          fc.option(fc.constantFrom(80, 443, 3000, 8080), { nil: null }),
        )
        .map(
          ([scheme, host, port]) =>
            new URL(`${scheme}://${host}${port === null ? '' : `:${port}`}/r`),
        ),
      network: pick(policy.networks, ['shielded:devnet', 'shielded:other']),
      asset: pick(policy.assets, ['dUSD', 'dEUR']),
      payTo: pick(policy.recipients, recipients),
      amount: fc.bigInt({ min: 0n, max: 10n }),
    });

  it('never allows what the policy did not (fast-check): a tightening is narrower or refused', () => {
    let applied = 0;
    fc.assert(
      fc.property(
        policyArb.chain((p) =>
          fc.tuple(
            fc.constant(p),
            changeArb(p),
            fc.array(intentArb(p), { minLength: 1, maxLength: 20 }),
          ),
        ),
        ([raw, change, intents]) => {
          const policy: Policy = raw;
          let next: Policy;
          try {
            next = tightenPolicy(policy, change).policy;
            applied++;
          } catch (error) {
            expect(error).toBeInstanceOf(ToolError);
            return;
          }
          expect(next.maxPerPayment <= policy.maxPerPayment).toBe(true);
          expect(next.maxPer24h <= policy.maxPer24h).toBe(true);
          for (const intent of intents) {
            if (checkPayment(next, intent) === null)
              expect(checkPayment(policy, intent)).toBeNull();
            for (const destination of destinations) {
              const withdrawal = { ...intent, destination };
              if (checkWithdrawal(next, withdrawal) === null)
                expect(checkWithdrawal(policy, withdrawal)).toBeNull();
            }
          }
          for (const removed of change.removeWithdrawalDestinations ?? [])
            expect(next.withdrawalDestinations).not.toContain(removed);
          // What was removed is not allowed afterwards.
          for (const entry of change.removeHosts ?? []) {
            const bare = entry.replace(/^\*\./, 'z.');
            const [host, port] = bare.split(':');
            if (port !== undefined)
              expect(hostAllowed(next, new URL(`http://${host}:${port}/`))).toBe(false);
          }
        },
      ),
      { numRuns: 500 },
    );
    // The property is about changes that apply: most generated ones must.
    expect(applied).toBeGreaterThan(100);
  });

  it('host lists only narrow (fast-check, every host and port of the universe checked)', () => {
    const urls = ['http', 'https'].flatMap((scheme) =>
      [...hostNames, 'x.b.a.test', 'd.c.test', 'z.a.test'].flatMap((host) =>
        ['', ':80', ':443', ':3000', ':8080'].map((port) => new URL(`${scheme}://${host}${port}/`)),
      ),
    );
    let applied = 0;
    fc.assert(
      fc.property(
        fc
          .oneof(fc.constant('*' as const), fc.uniqueArray(hostEntry, { maxLength: 5 }))
          .chain((hosts) =>
            fc.tuple(
              fc.constant(hosts),
              fc.record(
                {
                  restrictHostsTo: fc.uniqueArray(near(hosts), { maxLength: 4 }),
                  removeHosts: fc.uniqueArray(near(hosts), { maxLength: 3 }),
                },
                { requiredKeys: [] },
              ),
            ),
          ),
        ([hosts, change]) => {
          const policy = parsePolicy({ ...base, hosts });
          let next: Policy;
          try {
            next = tightenPolicy(policy, change).policy;
            applied++;
          } catch (error) {
            expect(error).toBeInstanceOf(ToolError);
            return;
          }
          for (const url of urls)
            if (hostAllowed(next, url)) expect(hostAllowed(policy, url), url.href).toBe(true);
          // Nothing a removed entry allowed is allowed afterwards.
          for (const entry of change.removeHosts ?? []) {
            const removed = parsePolicy({ ...base, hosts: [entry] });
            for (const url of urls)
              if (hostAllowed(removed, url))
                expect(hostAllowed(next, url), `${entry} ${url.href}`).toBe(false);
          }
        },
      ),
      { numRuns: 1000 },
    );
    expect(applied).toBeGreaterThan(200);
  });

  it('refuses every raise (fast-check)', () => {
    fc.assert(
      fc.property(
        policyArb,
        fc.bigInt({ min: 1n, max: 1000n }),
        fc.boolean(),
        (policy, extra, which) => {
          const change = which
            ? { maxPerPayment: policy.maxPerPayment + extra }
            : { maxPer24h: policy.maxPer24h + extra };
          expect(refusalOf(() => tightenPolicy(policy, change))).toMatchObject({
            code: 'policy_raise_refused',
            rule: which ? 'maxPerPayment' : 'maxPer24h',
          });
        },
      ),
    );
  });
});

describe('PolicyFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'priv-stark-policy-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (path: string, value: unknown, mode = 0o644) => {
    writeFileSync(path, JSON.stringify(value));
    chmodSync(path, mode);
  };

  it("re-reads the operator's edits, persists a tightening in place (mode kept), and composes concurrent tightenings", async () => {
    const path = join(dir, 'policy.json');
    write(path, { ...base, comment: 'kept' }, 0o640);
    const file = new PolicyFile(path);
    expect((await file.current()).maxPerPayment).toBe(20000n);
    await Promise.all([
      file.tighten({ maxPerPayment: 9000n }),
      file.tighten({ removeAssets: ['dUSD'] }),
    ]);
    expect(await file.current()).toMatchObject({ maxPerPayment: 9000n, assets: [] });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({
      comment: 'kept',
      maxPerPayment: '9000',
      assets: [],
    });
    expect(statSync(path).mode & 0o777).toBe(0o640);
    // The operator raises it again in the file: that is the one way up.
    write(path, { ...base, maxPerPayment: '30000' }, 0o640);
    expect((await new PolicyFile(path).current()).maxPerPayment).toBe(30000n);
    expect((await file.current()).maxPerPayment).toBe(30000n);
  });

  it('fails closed: a missing file, a file others may write, broken JSON', async () => {
    await expect(new PolicyFile(join(dir, 'missing.json')).current()).rejects.toMatchObject({
      code: 'policy_invalid',
    });
    const open = join(dir, 'open.json');
    write(open, base, 0o666);
    await expect(new PolicyFile(open).current()).rejects.toThrow(/writable by others/);
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{ "maxPerPayment": ');
    chmodSync(broken, 0o600);
    await expect(new PolicyFile(broken).current()).rejects.toMatchObject({
      code: 'policy_invalid',
    });
  });
});
