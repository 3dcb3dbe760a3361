/**
 * @module The spending policy a person sets for an agent: a per-payment maximum, a maximum over any
 * rolling 24 hours, allow-lists of hosts, recipients, networks and assets, and the destinations the
 * agent may withdraw to (none unless listed; a withdrawal out of the pool counts against the same
 * limits as a payment). This module parses the operator's file (strictly: an unknown key is a typo
 * that would otherwise lift a limit), checks one payment or withdrawal against the rules, and
 * applies a tightening — which can only ever narrow the policy; raising a limit or adding to a list
 * is refused, naming the rule.
 */

import { checkDestination, parseAmount } from '../scheme/index.js';
import { PolicyFileError, PolicyRefusal, ToolError } from './errors.js';

/** An allow-list: explicit entries, or `"*"` (anything), which only the operator can write. */
export type AllowList = readonly string[] | '*';

/** The policy in force. Amounts are atomic units of the asset. */
export interface Policy {
  readonly maxPerPayment: bigint;
  readonly maxPer24h: bigint;
  /** `host`, `host:port`, `*.domain` (its subdomains), `[v6]`, `[v6]:port`; lowercase. */
  readonly hosts: AllowList;
  /** Shielded addresses (`pstark1…`), lowercase. */
  readonly recipients: AllowList;
  /** CAIP-2 networks, e.g. `shielded:devnet`. */
  readonly networks: readonly string[];
  /** Asset ids, e.g. `dUSD`. */
  readonly assets: readonly string[];
  /**
   * CAIP-10 account ids the agent may withdraw to, exactly as written (EIP-55 checksum kept);
   * empty (the default when the file omits it): no withdrawal allowed.
   */
  readonly withdrawalDestinations: readonly string[];
  /** The operator's note, kept when the file is rewritten. */
  readonly comment?: string | undefined;
}

/** One payment about to be made. */
export interface PaymentIntent {
  readonly url: URL;
  readonly network: string;
  readonly asset: string;
  readonly payTo: string;
  readonly amount: bigint;
}

/** One withdrawal out of the pool about to be made. */
export interface WithdrawalIntent {
  /** A CAIP-10 account id (already checked by `checkDestination`). */
  readonly destination: string;
  /** The wallet's network and asset: what leaves the pool. */
  readonly network: string;
  readonly asset: string;
  readonly amount: bigint;
}

/** What `tighten_policy` may change: lower limits, narrower lists. */
export interface PolicyTightening {
  readonly maxPerPayment?: bigint | undefined;
  readonly maxPer24h?: bigint | undefined;
  /** Replaces the host list by these entries, each already allowed by the current list. */
  readonly restrictHostsTo?: readonly string[] | undefined;
  readonly removeHosts?: readonly string[] | undefined;
  /** Replaces the recipient list by these addresses, each already allowed. */
  readonly restrictRecipientsTo?: readonly string[] | undefined;
  readonly removeRecipients?: readonly string[] | undefined;
  readonly removeNetworks?: readonly string[] | undefined;
  readonly removeAssets?: readonly string[] | undefined;
  /** Withdrawal destinations no longer allowed (exact CAIP-10 account ids). */
  readonly removeWithdrawalDestinations?: readonly string[] | undefined;
}

const MAX_LIST = 1000;
const KEYS = new Set([
  'maxPerPayment',
  'maxPer24h',
  'hosts',
  'recipients',
  'networks',
  'assets',
  'withdrawalDestinations',
  'comment',
]);

/** A parsed host entry. */
interface HostSpec {
  /** `*.domain`: strict subdomains of `host`. */
  readonly wildcard: boolean;
  readonly host: string;
  /** `null`: any port. */
  readonly port: number | null;
}

const HOST_ENTRY =
  /^(\*\.)?([a-z0-9](?:[a-z0-9-]{0,62})(?:\.[a-z0-9](?:[a-z0-9-]{0,62}))*|\[[0-9a-f:.]{2,45}\])(?::(\d{1,5}))?$/;

function parseHostEntry(entry: string): HostSpec | null {
  const match = HOST_ENTRY.exec(entry);
  if (!match) return null;
  const wildcard = match[1] !== undefined;
  const host = match[2]!;
  // A wildcard is for domain names: not an IP literal (nor a name whose last label is numeric, which URLs read as IPv4).
  if (wildcard && (host.startsWith('[') || /\.[0-9]+$|^[0-9]+$/.test(host))) return null;
  const port = match[3] === undefined ? null : Number(match[3]);
  if (port !== null && (port < 1 || port > 65535)) return null;
  return { wildcard, host, port };
}

/** Normalises a host entry (lowercase), or `null` when it is not one. */
export function normalizeHostEntry(entry: string): string | null {
  if (typeof entry !== 'string' || entry.length > 300) return null;
  const lower = entry.trim().toLowerCase();
  return parseHostEntry(lower) ? lower : null;
}

function effectivePort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

function entryMatchesUrl(spec: HostSpec, url: URL): boolean {
  if (spec.port !== null && spec.port !== effectivePort(url)) return false;
  const hostname = url.hostname.toLowerCase();
  return spec.wildcard ? hostname.endsWith(`.${spec.host}`) : hostname === spec.host;
}

/** Whether entry `a` allows every host and port entry `b` allows. */
function covers(a: HostSpec, b: HostSpec): boolean {
  if (a.port !== null && a.port !== b.port) return false;
  if (!a.wildcard) return !b.wildcard && a.host === b.host;
  return b.host === a.host ? b.wildcard : b.host.endsWith(`.${a.host}`);
}

/** Whether some host and port is allowed by both entries. */
function overlaps(a: HostSpec, b: HostSpec): boolean {
  if (a.port !== null && b.port !== null && a.port !== b.port) return false;
  const under = (x: string, y: string) => x === y || x.endsWith(`.${y}`);
  if (a.wildcard && b.wildcard) return under(a.host, b.host) || under(b.host, a.host);
  if (a.wildcard) return b.host.endsWith(`.${a.host}`);
  if (b.wildcard) return a.host.endsWith(`.${b.host}`);
  return a.host === b.host;
}

/** Whether the policy's host list allows `url` (http or https only). */
export function hostAllowed(policy: Policy, url: URL): boolean {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (policy.hosts === '*') return true;
  return policy.hosts.some((entry) => entryMatchesUrl(parseHostEntry(entry)!, url));
}

function hostCovered(list: AllowList, entry: string): boolean {
  if (list === '*') return true;
  const spec = parseHostEntry(entry)!;
  return list.some((have) => covers(parseHostEntry(have)!, spec));
}

function listAllows(list: AllowList, value: string): boolean {
  return list === '*' || list.includes(value);
}

/** The host part of a URL as the policy and its refusals name it. */
export function hostOf(url: URL): string {
  return url.port === '' ? url.hostname : `${url.hostname}:${url.port}`;
}

/**
 * The first rule that refuses the payment, or `null` when the policy allows it (the rolling
 * 24-hour limit is the spend ledger's, which reserves the amount at the same time).
 */
export function checkPayment(policy: Policy, intent: PaymentIntent): PolicyRefusal | null {
  if (!hostAllowed(policy, intent.url)) {
    return new PolicyRefusal(
      'host_not_allowed',
      'hosts',
      `the policy does not allow paying ${hostOf(intent.url)}: it is not in the policy's hosts`,
    );
  }
  const scope = scopeRefusal(policy, intent);
  if (scope) return scope;
  if (!listAllows(policy.recipients, intent.payTo.toLowerCase())) {
    return new PolicyRefusal(
      'recipient_not_allowed',
      'recipients',
      `the policy does not allow paying the recipient ${intent.payTo.slice(0, 24)}…: it is not in the policy's recipients`,
    );
  }
  if (intent.amount > policy.maxPerPayment) {
    return new PolicyRefusal(
      'per_payment_limit',
      'maxPerPayment',
      `the payment of ${intent.amount} atomic units is above the policy's maxPerPayment of ${policy.maxPerPayment}`,
    );
  }
  return null;
}

/** The network or asset rule that refuses a payment or a withdrawal, or `null`. */
function scopeRefusal(
  policy: Policy,
  intent: { readonly network: string; readonly asset: string },
): PolicyRefusal | null {
  if (!policy.networks.includes(intent.network)) {
    return new PolicyRefusal(
      'network_not_allowed',
      'networks',
      `the policy does not allow network ${intent.network.slice(0, 80)} (networks: ${policy.networks.join(', ') || 'none'})`,
    );
  }
  if (!policy.assets.includes(intent.asset)) {
    return new PolicyRefusal(
      'asset_not_allowed',
      'assets',
      `the policy does not allow asset ${intent.asset.slice(0, 80)} (assets: ${policy.assets.join(', ') || 'none'})`,
    );
  }
  return null;
}

/**
 * The first rule that refuses the withdrawal, or `null` when the policy allows it (the rolling
 * 24-hour limit is the spend ledger's, as for a payment). The destination must be listed exactly.
 */
export function checkWithdrawal(policy: Policy, intent: WithdrawalIntent): PolicyRefusal | null {
  if (!policy.withdrawalDestinations.includes(intent.destination)) {
    return new PolicyRefusal(
      'destination_not_allowed',
      'withdrawalDestinations',
      policy.withdrawalDestinations.length === 0
        ? "the policy allows no withdrawal: its withdrawalDestinations is empty (only the operator's policy file can list destinations)"
        : `the policy does not allow withdrawing to ${intent.destination.slice(0, 128)}: it is not in the policy's withdrawalDestinations (exact CAIP-10 account ids)`,
    );
  }
  const scope = scopeRefusal(policy, intent);
  if (scope) return scope;
  if (intent.amount > policy.maxPerPayment) {
    return new PolicyRefusal(
      'per_payment_limit',
      'maxPerPayment',
      `the withdrawal of ${intent.amount} atomic units is above the policy's maxPerPayment of ${policy.maxPerPayment}`,
    );
  }
  return null;
}

/** A deposit into the wallet's pool from the server's EVM account, about to be made. */
export interface DepositIntent {
  /** The wallet's network and asset: what the deposit becomes. */
  readonly network: string;
  readonly asset: string;
  /** Atomic units leaving the EVM account at most: the amount plus the most the relayer may take. */
  readonly amount: bigint;
}

/**
 * The first rule that refuses the deposit, or `null` when the policy allows it: the network and
 * asset allowed, at most `maxPerPayment` (the rolling 24-hour limit, over the wallet's deposits,
 * is the deposit tool's).
 */
export function checkDeposit(policy: Policy, intent: DepositIntent): PolicyRefusal | null {
  const scope = scopeRefusal(policy, intent);
  if (scope) return scope;
  if (intent.amount > policy.maxPerPayment)
    return new PolicyRefusal(
      'per_payment_limit',
      'maxPerPayment',
      `the deposit of ${intent.amount} atomic units (its amount and the most the relayer may take) is above the policy's maxPerPayment of ${policy.maxPerPayment}`,
    );
  return null;
}

function parseLimit(value: unknown, key: string): bigint {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  // A limit may be 0 (nothing allowed); otherwise it is an amount of the profile (below 2^62).
  const limit = text === '0' ? 0n : parseAmount(text);
  if (limit === null)
    throw new PolicyFileError(
      `policy: "${key}" must be atomic units, a decimal integer string below 2^62`,
    );
  return limit;
}

function parseList(
  value: unknown,
  key: string,
  wildcard: boolean,
  normalize: (entry: string) => string | null,
): AllowList {
  if (value === '*' && wildcard) return '*';
  if (!Array.isArray(value) || value.length > MAX_LIST) {
    throw new PolicyFileError(
      `policy: "${key}" must be a list of at most ${MAX_LIST} entries${wildcard ? ' or "*"' : ''}`,
    );
  }
  const out: string[] = [];
  for (const entry of value) {
    const normal = typeof entry === 'string' ? normalize(entry) : null;
    if (normal === null)
      throw new PolicyFileError(
        `policy: "${key}" has an entry that is not valid: ${JSON.stringify(entry)?.slice(0, 60)}`,
      );
    if (!out.includes(normal)) out.push(normal);
  }
  return out;
}

const RECIPIENT = /^pstark1[02-9ac-hj-np-z]{6,200}$/;
const normalizeRecipient = (entry: string): string | null => {
  const lower = entry.trim().toLowerCase();
  return RECIPIENT.test(lower) ? lower : null;
};
/** A network or asset id: `shielded:devnet`, `dUSD`, or a chain pool's CAIP-19 asset `eip155:8453/erc20:0x…`. */
const normalizeName = (entry: string): string | null =>
  /^[A-Za-z0-9:._/-]{1,100}$/.test(entry) ? entry : null;
/** A withdrawal destination: a CAIP-10 account id `checkDestination` takes, kept exactly (its checksum is its case). */
const normalizeDestination = (entry: string): string | null =>
  checkDestination(entry).ok ? entry : null;

/** Parses the operator's policy (the JSON value of the file). */
export function parsePolicy(value: unknown): Policy {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new PolicyFileError('policy: expected a JSON object');
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!KEYS.has(key))
      throw new PolicyFileError(
        `policy: unknown key "${key.slice(0, 40)}" (known: ${[...KEYS].join(', ')})`,
      );
  }
  for (const key of ['maxPerPayment', 'maxPer24h', 'hosts', 'recipients', 'networks', 'assets']) {
    if (!(key in record)) throw new PolicyFileError(`policy: "${key}" is required`);
  }
  if (
    record.comment !== undefined &&
    (typeof record.comment !== 'string' || record.comment.length > 2000)
  ) {
    throw new PolicyFileError('policy: "comment" must be a string of at most 2000 characters');
  }
  return {
    maxPerPayment: parseLimit(record.maxPerPayment, 'maxPerPayment'),
    maxPer24h: parseLimit(record.maxPer24h, 'maxPer24h'),
    hosts: parseList(record.hosts, 'hosts', true, normalizeHostEntry),
    recipients: parseList(record.recipients, 'recipients', true, normalizeRecipient),
    networks: parseList(record.networks, 'networks', false, normalizeName) as readonly string[],
    assets: parseList(record.assets, 'assets', false, normalizeName) as readonly string[],
    withdrawalDestinations:
      record.withdrawalDestinations === undefined
        ? []
        : (parseList(
            record.withdrawalDestinations,
            'withdrawalDestinations',
            false,
            normalizeDestination,
          ) as readonly string[]),
    comment: record.comment as string | undefined,
  };
}

/** The policy as the file holds it. */
export function policyToJson(policy: Policy): Record<string, unknown> {
  return {
    ...(policy.comment !== undefined ? { comment: policy.comment } : {}),
    maxPerPayment: policy.maxPerPayment.toString(),
    maxPer24h: policy.maxPer24h.toString(),
    hosts: policy.hosts,
    recipients: policy.recipients,
    networks: policy.networks,
    assets: policy.assets,
    ...(policy.withdrawalDestinations.length > 0
      ? { withdrawalDestinations: policy.withdrawalDestinations }
      : {}),
  };
}

function entries(
  list: readonly string[] | undefined,
  normalize: (entry: string) => string | null,
  what: string,
): string[] {
  const out: string[] = [];
  for (const entry of list ?? []) {
    const normal = normalize(entry);
    if (normal === null)
      throw new ToolError(
        'invalid_policy_change',
        `${what}: ${JSON.stringify(entry).slice(0, 60)} is not a valid entry`,
      );
    if (!out.includes(normal)) out.push(normal);
  }
  return out;
}

function raise(
  rule: 'maxPerPayment' | 'maxPer24h' | 'hosts' | 'recipients',
  detail: string,
): PolicyRefusal {
  return new PolicyRefusal(
    'policy_raise_refused',
    rule,
    `tighten_policy only narrows the policy: ${detail}; raising a limit or allowing more is done only in the operator's policy file`,
  );
}

/**
 * Applies a tightening: every part is checked before anything changes, so a refused change leaves
 * the policy as it was.
 * @returns the narrower policy and the rules it changed
 * @throws PolicyRefusal `policy_raise_refused` (naming the rule) for anything that would allow more;
 *   `policy_tighten_unsupported` for a removal the list cannot express (from `"*"`, or an entry a
 *   wildcard still allows); ToolError `invalid_policy_change` for a malformed entry
 */
export function tightenPolicy(
  policy: Policy,
  change: PolicyTightening,
): { policy: Policy; changed: string[] } {
  // Each part in turn, in this order (the first refusal is the one reported), noting what changed.
  const changed: string[] = [];
  const maxPerPayment = lowerLimit(
    'maxPerPayment',
    policy.maxPerPayment,
    change.maxPerPayment,
    changed,
  );
  const maxPer24h = lowerLimit('maxPer24h', policy.maxPer24h, change.maxPer24h, changed);
  const hosts = narrowHosts(policy.hosts, change, changed);
  const recipients = narrowRecipients(policy.recipients, change, changed);
  const networks = withoutEntries(
    policy.networks,
    entries(change.removeNetworks, normalizeName, 'remove_networks'),
    'networks',
    changed,
  );
  const assets = withoutEntries(
    policy.assets,
    entries(change.removeAssets, normalizeName, 'remove_assets'),
    'assets',
    changed,
  );
  const withdrawalDestinations = withoutEntries(
    policy.withdrawalDestinations,
    entries(
      change.removeWithdrawalDestinations,
      normalizeDestination,
      'remove_withdrawal_destinations',
    ),
    'withdrawalDestinations',
    changed,
  );
  return {
    policy: {
      maxPerPayment,
      maxPer24h,
      hosts,
      recipients,
      networks,
      assets,
      withdrawalDestinations,
      comment: policy.comment,
    },
    changed: [...new Set(changed)],
  };
}

/** A limit lowered to `next` (kept when `undefined`); a raise is refused. */
function lowerLimit(
  rule: 'maxPerPayment' | 'maxPer24h',
  current: bigint,
  next: bigint | undefined,
  changed: string[],
): bigint {
  if (next === undefined) return current;
  if (next < 0n) throw new ToolError('invalid_policy_change', `${rule} must not be negative`);
  if (next > current) throw raise(rule, `${rule} is ${current}, ${next} would raise it`);
  if (next !== current) changed.push(rule);
  return next;
}

/**
 * The host list restricted to entries it already allows, then without the entries removed; a
 * removal that a remaining entry (a wildcard) would still partly allow is refused.
 */
function narrowHosts(current: AllowList, change: PolicyTightening, changed: string[]): AllowList {
  let hosts = current;
  if (change.restrictHostsTo !== undefined) {
    const next = entries(change.restrictHostsTo, normalizeHostEntry, 'restrict_hosts_to');
    const extra = next.find((entry) => !hostCovered(current, entry));
    if (extra !== undefined) throw raise('hosts', `${extra} is not allowed by the current hosts`);
    hosts = next;
    changed.push('hosts');
  }
  const removeHosts = entries(change.removeHosts, normalizeHostEntry, 'remove_hosts');
  if (removeHosts.length === 0) return hosts;
  if (hosts === '*')
    throw new PolicyRefusal(
      'policy_tighten_unsupported',
      'hosts',
      'hosts allows any host ("*"): removing one cannot be expressed; use restrict_hosts_to with the hosts to keep',
    );
  const kept: string[] = hosts.filter((entry) => !removeHosts.includes(entry));
  for (const entry of removeHosts) {
    const spec = parseHostEntry(entry)!;
    const other = kept.find((have) => overlaps(parseHostEntry(have)!, spec));
    if (other !== undefined) {
      throw new PolicyRefusal(
        'policy_tighten_unsupported',
        'hosts',
        `${entry} would still be allowed, at least in part, by the hosts entry ${other}: remove or narrow that entry too`,
      );
    }
  }
  if (kept.length !== hosts.length) changed.push('hosts');
  return kept;
}

/** The recipient list restricted to addresses it already allows, then without those removed. */
function narrowRecipients(
  current: AllowList,
  change: PolicyTightening,
  changed: string[],
): AllowList {
  let recipients = current;
  if (change.restrictRecipientsTo !== undefined) {
    const next = entries(change.restrictRecipientsTo, normalizeRecipient, 'restrict_recipients_to');
    const extra = next.find((entry) => !listAllows(current, entry));
    if (extra !== undefined)
      throw raise('recipients', `${extra.slice(0, 24)}… is not among the current recipients`);
    recipients = next;
    changed.push('recipients');
  }
  const removeRecipients = entries(
    change.removeRecipients,
    normalizeRecipient,
    'remove_recipients',
  );
  if (removeRecipients.length === 0) return recipients;
  if (recipients === '*') {
    throw new PolicyRefusal(
      'policy_tighten_unsupported',
      'recipients',
      'recipients allows any address ("*"): removing one cannot be expressed; use restrict_recipients_to with the addresses to keep',
    );
  }
  const kept = recipients.filter((entry) => !removeRecipients.includes(entry));
  if (kept.length !== recipients.length) changed.push('recipients');
  return kept;
}

/** A list without the entries removed (only ever shorter: a list with no `"*"`). */
function withoutEntries(
  list: readonly string[],
  removed: readonly string[],
  rule: 'networks' | 'assets' | 'withdrawalDestinations',
  changed: string[],
): string[] {
  if (removed.some((entry) => list.includes(entry))) changed.push(rule);
  return list.filter((entry) => !removed.includes(entry));
}
