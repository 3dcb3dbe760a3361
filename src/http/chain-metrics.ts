/**
 * @module The chain pool's gauges, read from the deposit watcher at each scrape: how far behind it
 * is (blocks and seconds — the lag alert), whether a reorganisation deeper than finality stopped
 * shielding, the reorganisations it absorbed, deposits by state, and each hot key's gas balance
 * with whether it is below the minimum that stops its sender.
 */

import { Gauge, type Registry } from 'prom-client';

import type { ChainHealth } from './chain-health.js';

/** Registers the chain gauges in `registry`, each reading `status()` when scraped. */
export function registerChainGauges(registry: Registry, status: () => ChainHealth): void {
  const registers = [registry];
  new Gauge({
    name: 'priv_stark_chain_lag_blocks',
    help: 'Blocks between the chain head and the last block whose escrow events were read',
    registers,
    collect() {
      this.set(status().lagBlocks);
    },
  });
  new Gauge({
    name: 'priv_stark_chain_lag_seconds',
    help: 'Seconds since the deposit watcher last read up to the head (or the head’s age when the RPC is behind)',
    registers,
    collect() {
      this.set(status().lagSeconds);
    },
  });
  new Gauge({
    name: 'priv_stark_chain_status',
    help: 'The deposit watcher’s status (1 for the current one)',
    labelNames: ['status'],
    registers,
    collect() {
      this.reset();
      this.set({ status: status().status }, 1);
    },
  });
  new Gauge({
    name: 'priv_stark_chain_reorg_beyond_depth',
    help: 'Whether a reorganisation replaced a block shielded deposits were accepted in (shielding stopped)',
    registers,
    collect() {
      this.set(status().status === 'reorg_beyond_depth' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'priv_stark_chain_reorgs',
    help: 'Reorganisations the deposit watcher absorbed since it started (nothing shielded undone)',
    registers,
    collect() {
      this.set(status().reorgs);
    },
  });
  new Gauge({
    name: 'priv_stark_chain_deposits',
    help: 'Escrow deposits by state (pending, accepted, declined, reclaimed, shielded, unshieldable)',
    labelNames: ['state'],
    registers,
    collect() {
      for (const [state, count] of Object.entries(status().deposits)) this.set({ state }, count);
    },
  });
  registerGasGauges(registers, status);
}

function registerGasGauges(registers: Registry[], status: () => ChainHealth): void {
  new Gauge({
    name: 'priv_stark_chain_gas_balance_wei',
    help: 'Each hot key’s gas balance (its address is on /health, never on a metric)',
    labelNames: ['role'],
    registers,
    collect() {
      this.reset();
      for (const key of status().keys)
        if (key.balance !== null) this.set({ role: key.role }, Number(key.balance));
    },
  });
  new Gauge({
    name: 'priv_stark_chain_gas_below_minimum',
    help: 'Whether a hot key’s gas is below the minimum (its sender stops signing)',
    labelNames: ['role'],
    registers,
    collect() {
      this.reset();
      for (const key of status().keys) this.set({ role: key.role }, key.sufficient ? 0 : 1);
    },
  });
}
