/**
 * @module The state file of an incremental audit (`priv-stark audit --state FILE`, docs/audit.md,
 * "Incremental audits"): where the last complete audit of one escrow stopped — the fold of the log
 * at its latest attested checkpoint (digest, totals, nullifiers, deposits, withdrawals, the leaves
 * not yet checked), the tree's frontier there, and the log's findings so far. Versioned JSON, every
 * field checked when read back: a file of another escrow, another version or another shape is
 * refused, never half-used.
 */

import type { Frontier } from '../core/facade.js';
import type { AuditCore } from './audit-source.js';
import { FINDING_CODES, type Finding, type FindingCode } from './findings.js';
import type { AuditResume } from './log-audit.js';
import type { FoldSnapshot } from './log-fold.js';

/** The state file's format version. */
export const AUDIT_STATE_VERSION = 1;

/** Why a state file was refused. */
export class AuditStateError extends Error {
  constructor(
    readonly code: 'audit_state_invalid' | 'audit_state_other_escrow',
    message: string,
  ) {
    super(message);
    this.name = 'AuditStateError';
  }
}

/** The escrow a state belongs to. */
export interface AuditBinding {
  readonly escrow: string;
  readonly chainId: number;
}

/** The state of `resume` for `binding`, as the file's text. */
export function serializeAuditState(resume: AuditResume, binding: AuditBinding): string {
  return JSON.stringify({
    version: AUDIT_STATE_VERSION,
    escrow: binding.escrow.toLowerCase(),
    chainId: binding.chainId,
    seq: resume.seq,
    frontier: `0x${Buffer.from(resume.frontier.state).toString('hex')}`,
    fold: resume.fold,
    findings: resume.findings,
    counts: resume.counts,
  });
}

const HEX32 = /^0x[0-9a-f]{64}$/;
const DECIMAL = /^(0|[1-9][0-9]{0,38})$/;

function fail(what: string): never {
  throw new AuditStateError('audit_state_invalid', `the audit state is not valid: ${what}`);
}

const isIndex = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isHex32 = (v: unknown): v is string => typeof v === 'string' && HEX32.test(v);
const isDecimal = (v: unknown): v is string => typeof v === 'string' && DECIMAL.test(v);
const isText = (v: unknown): v is string => typeof v === 'string' && v.length <= 200;

/** Checks every entry of `list` is a tuple whose fields pass `checks`. */
function tuples(list: unknown, name: string, checks: readonly ((v: unknown) => boolean)[]) {
  if (!Array.isArray(list)) fail(`${name} is not a list`);
  for (const entry of list)
    if (
      !Array.isArray(entry) ||
      entry.length !== checks.length ||
      !checks.every((check, i) => check(entry[i]))
    )
      fail(`an entry of ${name} is malformed`);
}

function checkFold(fold: unknown): FoldSnapshot {
  if (typeof fold !== 'object' || fold === null) fail('no fold');
  const f = fold as Record<string, unknown>;
  if (!isIndex(f.position) || !isIndex(f.explainedBelow)) fail('fold position');
  if (!isHex32(f.digest)) fail('fold digest');
  const totals = f.totals as Record<string, unknown> | null;
  if (
    typeof totals !== 'object' ||
    totals === null ||
    !['deposited', 'withdrawn', 'refunded'].every((k) => isDecimal(totals[k]))
  )
    fail('fold totals');
  tuples(f.expected, 'expected', [isIndex, isIndex, isHex32]);
  tuples(f.spent, 'spent', [isHex32, isIndex]);
  tuples(f.refunds, 'refunds', [isHex32, isHex32]);
  tuples(f.deposits, 'deposits', [isHex32, isIndex, isDecimal]);
  tuples(f.withdrawals, 'withdrawals', [
    isHex32,
    isIndex,
    isDecimal,
    isText,
    (v) => typeof v === 'boolean',
  ]);
  return f as unknown as FoldSnapshot;
}

function checkFindings(findings: unknown, counts: unknown) {
  if (!Array.isArray(findings)) fail('findings');
  const codes = new Set<string>(FINDING_CODES);
  for (const finding of findings) {
    const { code, evidence } = (finding ?? {}) as { code?: unknown; evidence?: unknown };
    if (typeof code !== 'string' || !codes.has(code)) fail('a finding code');
    if (
      typeof evidence !== 'object' ||
      evidence === null ||
      !Object.values(evidence).every(
        (v) => v === null || typeof v === 'number' || (typeof v === 'string' && v.length <= 400),
      )
    )
      fail('a finding’s evidence');
  }
  if (
    typeof counts !== 'object' ||
    counts === null ||
    !Object.entries(counts).every(([code, n]) => codes.has(code) && isIndex(n))
  )
    fail('finding counts');
  return {
    findings: findings as Finding[],
    counts: counts as Partial<Record<FindingCode, number>>,
  };
}

/**
 * The resume point a state file holds.
 * @throws AuditStateError when it is not a state of `binding`'s escrow in this version and shape
 */
export function parseAuditState(
  text: string,
  core: Pick<AuditCore, 'frontierAppend'>,
  binding: AuditBinding,
): AuditResume {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch {
    fail('not JSON');
  }
  if (typeof raw !== 'object' || raw === null) fail('not an object');
  if (raw.version !== AUDIT_STATE_VERSION) fail(`version ${String(raw.version)}`);
  if (raw.escrow !== binding.escrow.toLowerCase() || raw.chainId !== binding.chainId)
    throw new AuditStateError(
      'audit_state_other_escrow',
      `the audit state is of escrow ${String(raw.escrow)} on chain ${String(raw.chainId)}, not this one`,
    );
  if (!isIndex(raw.seq)) fail('seq');
  const fold = checkFold(raw.fold);
  if (typeof raw.frontier !== 'string' || !/^0x([0-9a-f]{2})+$/.test(raw.frontier))
    fail('frontier');
  let frontier: Frontier;
  try {
    const state = Uint8Array.from(Buffer.from(raw.frontier.slice(2), 'hex'));
    frontier = core.frontierAppend({ size: 0, root: '0x', state } as unknown as Frontier, []);
  } catch {
    fail('frontier');
  }
  if (frontier.size !== fold.explainedBelow) fail('the frontier’s size is not the leaves checked');
  return { seq: raw.seq, fold, frontier, ...checkFindings(raw.findings, raw.counts) };
}
