// The audit bench's chart (bench/results/audit.svg): where an audit of the bench's log spends its
// time — the log-only pass as measured (the chain's facts, then the log over HTTP), and the proof
// checks the full log would add at the measured proofs/s — beside the 5-minute mark for
// the log-only pass.

import type { TopLevelSpec } from 'vega-lite';

import { type Fields, fields, frame, num } from './charts.js';

/** Bars of minutes per part of the audit, the 5-minute mark as a rule. */
export function auditChart(json: Fields): TopLevelSpec {
  const logOnly = fields(json.logOnly, 'logOnly');
  const events = num(logOnly.events, 'logOnly.events');
  const chain = num(logOnly.chainSeconds, 'logOnly.chainSeconds');
  const wall = num(logOnly.wallSeconds, 'logOnly.wallSeconds');
  const row = `log-only audit (${events.toLocaleString('en-US')} events)`;
  const parts: Fields[] = [
    { row, part: "the chain's facts (RPC)", minutes: chain / 60 },
    { row, part: 'the log over HTTP, leaves, claims', minutes: Math.max(0, wall - chain) / 60 },
  ];
  if (json.extrapolated !== null && json.extrapolated !== undefined) {
    const x = fields(json.extrapolated, 'extrapolated');
    parts.push({
      row: 'proof checks, extrapolated (990,000 proofs)',
      part: 'proof checks at the measured proofs/s',
      minutes: num(x.seconds, 'extrapolated.seconds') / 60,
    });
  }
  return {
    ...frame('Auditing the bench log: minutes per part (2 cores)', json),
    width: 420,
    height: { step: 26 },
    layer: [
      {
        data: { values: parts },
        mark: { type: 'bar', tooltip: true },
        encoding: {
          y: { field: 'row', type: 'nominal', sort: null, title: null, axis: { labelLimit: 320 } },
          x: { field: 'minutes', type: 'quantitative', stack: 'zero', title: 'minutes' },
          color: {
            field: 'part',
            type: 'nominal',
            title: null,
            legend: { orient: 'bottom', labelLimit: 300 },
          },
        },
      },
      {
        data: { values: [{ minutes: 5, label: 'the issue’s 5 min (log-only)' }] },
        layer: [
          {
            mark: { type: 'rule', strokeDash: [4, 3], color: '#e45756' },
            encoding: { x: { field: 'minutes', type: 'quantitative' } },
          },
          {
            mark: {
              type: 'text',
              align: 'left',
              dx: 3,
              dy: -4,
              baseline: 'bottom',
              color: '#e45756',
              fontSize: 10,
            },
            encoding: {
              x: { field: 'minutes', type: 'quantitative' },
              y: { value: 0 },
              text: { field: 'label' },
            },
          },
        ],
      },
    ],
  };
}
