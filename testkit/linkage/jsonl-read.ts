/**
 * @module The published JSON Lines read back (`jsonl.ts` writes them; schema in docs/privacy.md,
 * "The linkage test"): the operator's view assembled from the request, event, escrow and
 * checkpoint lines as at the end of a run, and the ground truth from the actor and item lines — so
 * the heuristics can be measured again on a published run, and anyone's own on the same files.
 */

import { type BodyFields, noFields } from './body-fields.js';
import type { LinkageConfig } from './config.js';
import type { Upload } from './link-observer.js';
import {
  assembleOperatorView,
  type ChainDepositRow,
  type CheckpointRow,
  type OperatorView,
} from './operator-view.js';
import type { RecordedRequest } from './recording-proxy.js';
import type { Actor, GroundTruth } from './truth.js';

/** A published run, read back. */
export interface PublishedRun {
  readonly config: LinkageConfig;
  readonly view: OperatorView;
  readonly truth: GroundTruth;
}

/** A line that is not what the schema says. */
export class JsonlError extends Error {
  override readonly name = 'JsonlError';
}

type Line = Record<string, unknown> & { type?: unknown };

function parse(text: string, file: string): Line[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l, i) => {
      const value: unknown = JSON.parse(l);
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new JsonlError(`${file} line ${i + 1}: not a JSON object`);
      return value as Line;
    });
}

/** Drops the line's `type`, keeping the row it carries. */
function row({ type: _type, ...rest }: Line): Record<string, unknown> {
  return rest;
}

function fieldsOf(value: unknown): BodyFields {
  return { ...noFields(), ...((value ?? {}) as Partial<BodyFields>) };
}

function requestOf(line: Line): RecordedRequest {
  return {
    service: line.service as RecordedRequest['service'],
    time: Number(line.time),
    source: String(line.source),
    method: String(line.method),
    path: String(line.path),
    status: Number(line.status),
    bytes: Number(line.bytes),
    digest: typeof line.digest === 'string' ? line.digest : '',
    sent: fieldsOf(line.sent),
    answered: fieldsOf(line.answered),
  };
}

/** The view and truth of `linkage-view.jsonl` and `linkage-truth.jsonl` (their texts). */
export function readPublishedRun(viewText: string, truthText: string): PublishedRun {
  const lines = parse(viewText, 'linkage-view.jsonl');
  const run = lines.find((l) => l.type === 'run');
  if (run === undefined) throw new JsonlError('linkage-view.jsonl: no run line');
  const events: Record<string, unknown>[] = [];
  const checkpoints: CheckpointRow[] = [];
  const chainDeposits: ChainDepositRow[] = [];
  const requests: RecordedRequest[] = [];
  const uploads: Upload[] = [];
  for (const line of lines) {
    if (line.type === 'request') requests.push(requestOf(line));
    else if (line.type === 'event') events.push(row(line));
    else if (line.type === 'checkpoint') checkpoints.push(row(line) as unknown as CheckpointRow);
    else if (line.type === 'chain-deposit')
      chainDeposits.push(row(line) as unknown as ChainDepositRow);
    else if (line.type === 'upload')
      uploads.push({
        source: String(line.source),
        time: Number(line.time),
        bytes: Number(line.bytes),
      });
  }
  const view = assembleOperatorView({ events, checkpoints, chainDeposits }, requests, uploads);
  const actors: Actor[] = [];
  const deposits = new Map<string, number>();
  const nullifiers = new Map<string, number>();
  for (const line of parse(truthText, 'linkage-truth.jsonl')) {
    if (line.type === 'actor') actors.push(row(line) as unknown as Actor);
    if (line.type !== 'item' || typeof line.wallet !== 'number') continue;
    // An item's id is its kind's letter and its key: the deposit's commitment, else its first nullifier.
    const [letter, key] = String(line.id).split(':');
    if (key === undefined) throw new JsonlError(`linkage-truth.jsonl: item id ${line.id}`);
    (letter === 'd' ? deposits : nullifiers).set(key, line.wallet);
  }
  return {
    config: run.config as LinkageConfig,
    view,
    truth: { actors, deposits, nullifiers },
  };
}
