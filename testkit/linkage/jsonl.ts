/**
 * @module The run written out as JSON Lines, so anyone can run their own heuristics on it
 * (schema: docs/privacy.md, "The linkage test"): the operator's view — one line per recorded
 * request, per database event, per deposit the escrow took (chain pools), per checkpoint — and,
 * apart, the ground truth — one line per actor (address and role) and per item (its owner and, for
 * payments, how the proof travelled). `jsonl-read.ts` reads them back.
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

import type { BodyFields } from './body-fields.js';
import { transports } from './pairs.js';
import type { RecordedRequest } from './recording-proxy.js';
import type { LinkageRun } from './run.js';
import { ownerOf } from './truth.js';

const line = (value: unknown) =>
  JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v));

/** `fields` without its empty lists, or undefined when every list is empty. */
function named(fields: BodyFields): Partial<BodyFields> | undefined {
  const kept = Object.entries(fields).filter(([, list]) => list.length > 0);
  return kept.length === 0 ? undefined : Object.fromEntries(kept);
}

/**
 * A request's line, kept small enough for a full-size run to be committed: lists only where they
 * name something, the digest only of a body, and no `answered` for a read of the public log's fixed
 * pages — whatever they name is in the event and checkpoint lines, and every wallet reads them
 * (about four reads a wallet an epoch).
 */
function requestLine(r: RecordedRequest): string {
  const publicPage = r.method === 'GET' && /[?&]page=/.test(r.path);
  return line({
    type: 'request',
    service: r.service,
    time: r.time,
    source: r.source,
    method: r.method,
    path: r.path,
    status: r.status,
    bytes: r.bytes,
    ...(r.bytes > 0 ? { digest: r.digest } : {}),
    sent: named(r.sent),
    answered: publicPage ? undefined : named(r.answered),
  });
}

/** The operator's view as lines. */
export function viewLines(run: Pick<LinkageRun, 'view' | 'config'>): string[] {
  const { view } = run;
  return [
    line({ type: 'run', config: run.config, compression: run.config.compression }),
    ...view.requests.map(requestLine),
    ...view.events.map((e) => line({ type: 'event', ...e })),
    ...view.chainDeposits.map((d) => line({ type: 'chain-deposit', ...d })),
    ...view.checkpoints.map((c) => line({ type: 'checkpoint', ...c })),
    // Not the operator's: a network observer's on the wallets' links (upload timing).
    ...view.linkUploads.map((u) => line({ type: 'upload', ...u })),
  ];
}

/** The ground truth as lines. */
export function truthLines(run: Pick<LinkageRun, 'view' | 'truth'>): string[] {
  const how = transports(run.view, run.truth);
  return [
    ...run.truth.actors.map((a) => line({ type: 'actor', ...a })),
    ...run.view.items.map((i) =>
      line({
        type: 'item',
        id: i.id,
        kind: i.kind,
        wallet: ownerOf(run.truth, i) ?? null,
        transport: how.get(i.id) ?? null,
      }),
    ),
  ];
}

/** Writes `linkage-view.jsonl` and `linkage-truth.jsonl` into `directory`. */
export function writeJsonl(run: LinkageRun, directory: string): { view: string; truth: string } {
  const view = `${directory}/linkage-view.jsonl`;
  const truth = `${directory}/linkage-truth.jsonl`;
  mkdirSync(dirname(view), { recursive: true });
  writeFileSync(view, `${viewLines(run).join('\n')}\n`);
  writeFileSync(truth, `${truthLines(run).join('\n')}\n`);
  return { view, truth };
}
