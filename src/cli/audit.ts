/**
 * @module `priv-stark audit`: anyone, with no secret, checks a pool against its escrow (docs/audit.md,
 * "The audit") — the public log and archive from the pool node (`PublicLogReader`), the escrow's
 * deposits, payouts, attestations and balance from the auditor's own RPC — trusting nothing the
 * pool node says. Exit 0 only when everything up to the latest attestation was checked and nothing
 * was found; 1 with findings; 2 when it could not complete (the RPC or the pool node unreachable, a
 * missing page, a pruned archive, bad flags) — never 0 then.
 */

import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { CliFailure, type CliIo, stdio } from './cli-io.js';

export const AUDIT_USAGE = `  audit --rpc URL --escrow ADDRESS --pool URL [--json] [--shield-deadline S] [--from-block N]
        [--state FILE [--full]] [--compare OTHER.json]
                    checks the pool against its escrow with no secret: every archived proof verified,
                    every leaf explained, nullifiers spent once, recipient notes, each attestation's log
                    digest, root and totals recomputed; every shielded deposit accepted on chain with its
                    amount, every accepted one shielded within S seconds (3600), every payout a
                    withdrawal's, none also refunded, the escrow's balance covering what is owed; exit 0
                    clean up to the latest attestation, 1 with findings, 2 when it could not complete.
                    --state FILE continues from the last complete audit kept in FILE (and keeps this
                    one); --full reads the log from its start all the same; --compare holds the log
                    digests past the latest attestation against another auditor's --json report`;

/** The JSON report. */
export interface AuditReport {
  readonly ok: boolean;
  readonly checkedUpTo: {
    readonly seq: number;
    readonly eventId: number;
    readonly block: number;
  } | null;
  readonly findings: readonly {
    readonly code: string;
    readonly evidence: Record<string, unknown>;
  }[];
  readonly incomplete?: string;
  /** The attested checkpoint a `--state` audit resumed after. */
  readonly resumedAfter?: number;
  /** The log digests at the latest attestation and every checkpoint past it (`--compare`). */
  readonly tail: readonly {
    readonly seq: number;
    readonly eventId: number;
    readonly logDigest: string;
  }[];
  /** Checkpoints compared with the other report (`--compare`). */
  readonly compared?: number;
}

function flags(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      rpc: { type: 'string' },
      escrow: { type: 'string' },
      pool: { type: 'string' },
      json: { type: 'boolean' },
      'shield-deadline': { type: 'string' },
      'from-block': { type: 'string' },
      state: { type: 'string' },
      full: { type: 'boolean' },
      compare: { type: 'string' },
    },
    strict: true,
  });
  const need = (name: 'rpc' | 'escrow' | 'pool') => {
    const value = values[name];
    if (value === undefined || value === '') throw new CliFailure(2, `--${name} is required`);
    return value;
  };
  const rpc = need('rpc');
  const pool = need('pool');
  const escrow = need('escrow');
  for (const [name, url] of [
    ['--rpc', rpc],
    ['--pool', pool],
  ] as const)
    if (!/^https?:\/\/[^\s]+$/.test(url)) throw new CliFailure(2, `${name} expects an http(s) URL`);
  if (!/^0x[0-9a-fA-F]{40}$/.test(escrow))
    throw new CliFailure(2, '--escrow expects an address (0x and 40 hex digits)');
  const whole = (name: string, text: string | undefined, fallback: number) => {
    if (text === undefined) return fallback;
    if (!/^[0-9]{1,12}$/.test(text)) throw new CliFailure(2, `${name} expects a whole number`);
    return Number(text);
  };
  if (values.full === true && values.state === undefined)
    throw new CliFailure(
      2,
      '--full goes with --state FILE (an audit without one always reads it all)',
    );
  for (const name of ['state', 'compare'] as const)
    if (values[name] === '') throw new CliFailure(2, `--${name} expects a file`);
  return {
    state: values.state,
    full: values.full === true,
    compare: values.compare,
    rpc,
    pool,
    escrow: escrow as `0x${string}`,
    json: values.json === true,
    shieldDeadlineS: whole('--shield-deadline', values['shield-deadline'], 3600),
    fromBlock:
      values['from-block'] === undefined ? null : whole('--from-block', values['from-block'], 0),
  };
}

/** The other auditor's report named by `--compare`: its tail. */
function otherTail(path: string, tailOf: (report: unknown) => AuditReport['tail'] | string) {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliFailure(2, `--compare: cannot read ${path} (${(error as Error).message})`);
  }
  let report: unknown;
  try {
    report = JSON.parse(text);
  } catch {
    throw new CliFailure(2, `--compare: ${path} is not JSON`);
  }
  const tail = tailOf(report);
  if (typeof tail === 'string') throw new CliFailure(2, `--compare: ${path}: ${tail}`);
  return tail;
}

/** The last complete audit `--state` kept, `null` when there is none yet (or `--full`). */
function readState(f: ReturnType<typeof flags>): string | null {
  if (f.state === undefined || f.full) return null;
  try {
    return readFileSync(f.state, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new CliFailure(2, `--state: cannot read ${f.state} (${(error as Error).message})`);
  }
}

/** Keeps `text` in `path` whole or not at all (written aside, then renamed over). */
function writeState(path: string, text: string): void {
  const aside = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(aside, text, { mode: 0o644 });
    renameSync(aside, path);
  } catch (error) {
    throw new CliFailure(2, `--state: cannot write ${path} (${(error as Error).message})`);
  }
}

/** Runs the audit; the report, or a `CliFailure` of exit 2 when it cannot complete. */
async function audit(f: ReturnType<typeof flags>): Promise<AuditReport> {
  const [{ createPublicClient, http }, { loadCore }, auditRoom, chain, { PublicLogReader }] =
    await Promise.all([
      import('viem'),
      import('../core/index.js'),
      import('../audit/index.js'),
      import('../chain/chain-audit.js'),
      import('../pool-node/public-log-reader.js'),
    ]);
  const { ChainError, chainErrorOf } = await import('../chain/chain-errors.js');
  const { BaseError } = await import('viem');
  const { findDeployBlock } = await import('../chain/chain-binding.js');
  const { PoolNodeError } = await import('../pool-node/index.js');
  const other = f.compare === undefined ? null : otherTail(f.compare, auditRoom.tailOf);
  const core = await loadCore();
  const client = createPublicClient({ transport: http(f.rpc, { retryCount: 1 }) });
  try {
    const binding = { escrow: f.escrow, chainId: await client.getChainId() };
    const saved = readState(f);
    const resume = saved === null ? null : auditRoom.parseAuditState(saved, core, binding);
    const from = f.fromBlock ?? (await findDeployBlock(client, f.escrow));
    const facts = await chain.readChainFacts(client, f.escrow, from);
    const log = await auditRoom.auditLog(core, new PublicLogReader(f.pool), facts.attestations, {
      resume,
    });
    const findings = [...log.findings, ...chain.chainFindings(core, log.facts, facts, f)];
    const compared = other === null ? null : auditRoom.compareTails(log.tail, other);
    if (compared) findings.push(...compared.findings);
    const latest = facts.attestations.at(-1);
    const checked =
      log.checkedUpTo === null || latest === undefined
        ? null
        : { ...log.checkedUpTo, block: latest.block };
    const incomplete =
      log.incomplete ??
      (latest !== undefined && checked?.seq !== latest.seq
        ? 'not checked up to the latest attestation'
        : compared?.compared === 0
          ? '--compare: the two reports have no checkpoint in common'
          : null);
    if (f.state !== undefined && log.resume !== null)
      writeState(f.state, auditRoom.serializeAuditState(log.resume, binding));
    return {
      ok: incomplete === null && findings.length === 0,
      checkedUpTo: checked,
      findings,
      ...(incomplete === null ? {} : { incomplete }),
      ...(log.resumedAfter === null ? {} : { resumedAfter: log.resumedAfter }),
      tail: log.tail,
      ...(compared === null ? {} : { compared: compared.compared }),
    };
  } catch (error) {
    if (error instanceof ChainError) throw new CliFailure(2, `${error.code}: ${error.message}`);
    // A read of viem's own (the chain id, the deployment block): its stable code, one line.
    if (error instanceof BaseError) {
      const failure = chainErrorOf(error, 'the RPC');
      throw new CliFailure(2, `${failure.code}: ${failure.message}`);
    }
    if (error instanceof PoolNodeError) throw new CliFailure(2, `${error.code}: ${error.message}`);
    if (error instanceof auditRoom.AuditStateError)
      throw new CliFailure(2, `${error.code}: ${error.message}`);
    throw error;
  }
}

/** `priv-stark audit`: the exit code. */
export async function auditCommand(argv: string[], io: CliIo = stdio): Promise<number> {
  try {
    const f = flags(argv);
    const report = await audit(f);
    if (f.json) io.out(JSON.stringify(report));
    else {
      io.out(
        report.ok
          ? `clean: checked up to attestation ${report.checkedUpTo?.seq ?? '(none yet)'}`
          : report.incomplete
            ? `incomplete: ${report.incomplete}`
            : `${report.findings.length} finding(s)`,
      );
      for (const finding of report.findings)
        io.out(`${finding.code} ${JSON.stringify(finding.evidence)}`);
    }
    // Findings are evidence whether or not the rest could be checked; without any, an audit that
    // did not reach the latest attestation is never clean.
    if (report.findings.length > 0) return 1;
    return report.ok ? 0 : 2;
  } catch (error) {
    if (error instanceof CliFailure) {
      io.err(`priv-stark audit: ${error.message}`);
      return error.exitCode;
    }
    // Bad flags, or a page that is not what the route answers (a hostile or broken pool node, a
    // proxy in the way): the audit could not complete — one line, exit 2, never a stack trace.
    const message = error instanceof Error ? error.message : String(error);
    io.err(`priv-stark audit: could not complete: ${message.slice(0, 300)}`);
    return 2;
  }
}
