/**
 * What the trace suites look for in spans: every text a span carries — its name, each attribute's
 * key and value, its status message, its events and their attributes, its links' attributes and
 * its resource — searched for values a span must never hold (a payment's fields, the client
 * address, a query string, a header's value), and attribute keys that would record the client,
 * the URL or headers whatever their value. Also the forbidden values of a payment and the body of
 * `POST /proofs`.
 */

import type { Attributes } from '@opentelemetry/api';

import { encodeProof } from '../../../src/scheme/index.js';
import type { PaymentFixture } from '../../../testkit/fixtures.js';

/** Attribute keys that name the client, the URL or headers: never on a span, whatever the value. */
export const FORBIDDEN_KEYS =
  /^(client\.|url\.|http\.(request|response)\.header\.|user_agent\.|network\.peer\.|net\.peer\.|net\.sock\.peer|http\.client_ip|http\.target|http\.url|exception\.)/;

/** Labelled values no span may hold. */
export type Forbidden = Readonly<Record<string, string>>;

/**
 * What is scanned of a span: the SDK's (an in-memory exporter's) and the collector's decoded ones
 * alike.
 */
export interface ScannedSpan {
  readonly name: string;
  readonly attributes: Attributes;
  readonly status: { readonly message?: string | undefined };
  readonly events: readonly {
    readonly name: string;
    readonly attributes?: Attributes | undefined;
  }[];
  readonly links: readonly { readonly attributes?: Attributes | undefined }[];
  readonly resource: { readonly attributes: Attributes };
}

function texts(span: ScannedSpan): [where: string, text: string][] {
  const ofAttributes = (where: string, attributes: Attributes | undefined) =>
    Object.entries(attributes ?? {}).map(
      ([key, value]) => [`${where} ${key}`, `${key}=${String(value)}`] as [string, string],
    );
  return [
    ['name', span.name],
    ...ofAttributes('attribute', span.attributes),
    ['status message', span.status.message ?? ''],
    ...span.events.flatMap((event) => [
      ['event', event.name] as [string, string],
      ...ofAttributes(`event ${event.name}`, event.attributes),
    ]),
    ...span.links.flatMap((link) => ofAttributes('link', link.attributes)),
    ...ofAttributes('resource', span.resource.attributes),
  ];
}

/**
 * Every place a forbidden value or key occurs in `spans`, as `span name: where: label` lines
 * (empty when none: what the suites expect).
 */
export function findForbidden(spans: readonly ScannedSpan[], forbidden: Forbidden): string[] {
  const found: string[] = [];
  const values = Object.entries(forbidden).filter(([, value]) => value !== '');
  for (const span of spans) {
    for (const key of Object.keys(span.attributes))
      if (FORBIDDEN_KEYS.test(key)) found.push(`${span.name}: attribute key ${key}`);
    for (const [where, text] of texts(span)) {
      const lower = text.toLowerCase();
      for (const [label, value] of values)
        if (lower.includes(value.toLowerCase())) found.push(`${span.name}: ${where}: ${label}`);
    }
  }
  return found;
}

/** The same search over any text (an exporter's wire body). */
export function findForbiddenText(text: string, forbidden: Forbidden): string[] {
  const lower = text.toLowerCase();
  return Object.entries(forbidden)
    .filter(([, value]) => value !== '' && lower.includes(value.toLowerCase()))
    .map(([label]) => label);
}

/** What a span must never hold of a payment: every field that could tell it or its payer apart. */
export function paymentValues(p: PaymentFixture, reference?: string): Forbidden {
  const { root, nullifier, change, amount } = p.publicInputs;
  return {
    [`nullifier of ${p.index}/${p.variant}`]: nullifier,
    [`root of ${p.index}/${p.variant}`]: root,
    [`change of ${p.index}/${p.variant}`]: change,
    [`recipient of ${p.index}/${p.variant}`]: p.payment.payTo,
    [`amount of ${p.index}/${p.variant}`]: amount,
    [`resource id of ${p.index}/${p.variant}`]: p.payment.resourceId,
    [`resource url of ${p.index}/${p.variant}`]: `merchant.example/fixture/${p.variant}`,
    [`proof of ${p.index}/${p.variant}`]: encodeProof(p.proof).slice(100, 140),
    ...(reference ? { [`reference of ${p.index}/${p.variant}`]: reference } : {}),
  };
}
