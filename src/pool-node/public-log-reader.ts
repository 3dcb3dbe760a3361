/**
 * @module The pool node's public log as an auditor reads it over HTTP (`priv-stark audit`): events
 * by position, the archive's fixed pages and state, leaves, checkpoints and the recorded log
 * digests — the reads the log audit takes (`AuditLogSource`, src/audit/log-audit.ts), each a public
 * route any reader may call. A pruned archive page (410) reads as empty: the archive's state says
 * how far it was pruned.
 */

import type { AuditLogSource } from '../audit/log-audit.js';
import type { DigestHex } from '../core/digest.js';
import type {
  ArchivedProof,
  ArchiveState,
  Checkpoint,
  LogDigestRecord,
  PoolEvent,
} from '../ledger/index.js';
import type { ArchivePage, ArchiveStateReply, DigestsPage } from './archive-schema.js';
import {
  PoolNodeConnection,
  type PoolNodeConnectionOptions,
  PoolNodeError,
  pageQuery,
} from './node-request.js';
import { PAGE_SIZES } from './public-pages.js';
import type { CheckpointsPage, EventsPage, LeavesPage } from './read-schemas.js';

/** An auditor's reads of one pool node's public log. */
export class PublicLogReader implements AuditLogSource {
  private readonly connection: PoolNodeConnection;

  /** @param url the node's base URL, e.g. `https://pool.example` */
  constructor(url: string, options: PoolNodeConnectionOptions = {}) {
    this.connection = new PoolNodeConnection(url, options);
  }

  get url(): string {
    return this.connection.url;
  }

  async publishedEvents(after: number, limit: number): Promise<PoolEvent[]> {
    const page = await this.connection.request<EventsPage>(
      `/events${pageQuery('after', after, limit)}`,
    );
    return page.events;
  }

  async archivedProofs(after: number, limit: number): Promise<ArchivedProof[]> {
    const out: ArchivedProof[] = [];
    const size = PAGE_SIZES.archive;
    for (let page = Math.floor(after / size); page * size < after + limit; page++) {
      let reply: ArchivePage;
      try {
        reply = await this.connection.request<ArchivePage>(`/archive?page=${page}`);
      } catch (error) {
        if (error instanceof PoolNodeError && error.code === 'archive_pruned') continue;
        throw error;
      }
      for (const p of reply.proofs)
        if (p.id > after && p.id <= after + limit)
          out.push({
            id: p.id,
            root: p.root,
            ctx: p.ctx,
            refund: p.refund,
            proof: new Uint8Array(Buffer.from(p.proof, 'base64')),
          });
    }
    return out;
  }

  async archiveState(): Promise<ArchiveState> {
    const state = await this.connection.request<ArchiveStateReply>('/archive/state');
    return { prunedThrough: state.prunedThrough, legacyThrough: state.legacyThrough };
  }

  async leaves(from: number, limit: number): Promise<DigestHex[]> {
    const page = await this.connection.request<LeavesPage>(
      `/leaves${pageQuery('from', from, limit)}`,
    );
    return page.leaves;
  }

  async checkpoints(after: number, limit: number): Promise<Checkpoint[]> {
    const page = await this.connection.request<CheckpointsPage>(
      `/checkpoints${pageQuery('after', after, limit)}`,
    );
    return page.checkpoints;
  }

  async logDigests(after: number, limit: number): Promise<LogDigestRecord[]> {
    const size = PAGE_SIZES.checkpoints;
    const out: LogDigestRecord[] = [];
    for (let page = Math.floor(after / size); out.length < limit; page++) {
      const reply = await this.connection.request<DigestsPage>(`/digests?page=${page}`);
      out.push(...reply.digests.filter((d) => d.seq > after));
      if (reply.digests.length < size) break;
    }
    return out.slice(0, limit);
  }
}
