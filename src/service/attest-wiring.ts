/**
 * @module A chain pool's attester, wired (docs/audit.md, "Attestations"): with an attester key,
 * the pool node's instance posts the latest checkpoint's attestation every `--attest-interval-ms`
 * (hourly by default) and when the operator asks (`POST /attest`). Loaded only for a chain pool.
 * Without the key there is no attester: the route answers `no_attester`.
 */

import { extendLogDigests } from '../audit/index.js';
import { AttestationSender } from '../chain/attestation-sender.js';
import {
  type AttesterEvent,
  ChainAttester,
  DEFAULT_ATTEST_INTERVAL_MS,
} from '../chain/attester.js';
import type { OperatorKeys } from '../chain/keys.js';
import type { Ledger } from '../ledger/ledger.js';
import { nodeProofHash } from '../pool-node/index.js';
import type { ChainServiceConfig, OpenedChain } from './chain-wiring.js';

/** Where the attester reports; set once the pool node's logger exists. */
export interface AttesterLog {
  target: { info(o: object, m: string): void; warn(o: object, m: string): void } | null;
}

/** The attester of the pool node's instance, started; `null` without an attester key. */
export function chainAttester(
  opened: OpenedChain,
  config: ChainServiceConfig,
  parts: { ledger: Ledger; keys: OperatorKeys; log: AttesterLog },
): ChainAttester | null {
  const account = parts.keys.account('attester');
  if (account === undefined) return null;
  const { checked, clients } = opened;
  const { store } = parts.ledger;
  const attester = new ChainAttester({
    store,
    extendLogDigests: () => extendLogDigests(store, nodeProofHash),
    clients,
    chainId: checked.chainId,
    sender: new AttestationSender(clients, checked.chainId, checked.escrow, account),
    sets: opened.attestedSets,
    // Checkpoint numbers, roots, totals and transaction hashes: all public on chain.
    onEvent: (event: AttesterEvent) => {
      if (event.kind === 'attested')
        parts.log.target?.info(
          { outcome: event.report.outcome, seq: event.report.seq, tx: event.report.tx },
          'attestation',
        );
      else
        parts.log.target?.warn({ code: event.code, reason: event.message }, 'attestation failed');
    },
  });
  attester.start(config.attestIntervalMs ?? DEFAULT_ATTEST_INTERVAL_MS);
  return attester;
}
