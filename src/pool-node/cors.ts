/**
 * @module Which browser pages may talk to the pool node: origins as operators write them
 * (`--pool-cors`, `POOL_CORS_ORIGINS`), checked once, and the one question the routes ask.
 */

/** The allowed origins: exact origins, `'*'` for any, or none. */
export type CorsOrigins = ReadonlySet<string> | '*' | null;

/**
 * Reads a CORS origin list as operators write it: `*`, or comma-separated exact origins. Empty
 * means none. Each origin is checked when the node is built ({@link checkCorsOrigins}).
 */
export function parseCorsOrigins(text: string | undefined): readonly string[] | '*' | undefined {
  const trimmed = text?.trim();
  if (!trimmed) return undefined;
  if (trimmed === '*') return '*';
  return trimmed
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin.length > 0);
}

/**
 * The allowed origins of a configuration.
 * @throws RangeError for anything that is not an origin (scheme, host, optional port)
 */
export function checkCorsOrigins(origins: readonly string[] | '*' | undefined): CorsOrigins {
  if (origins === undefined) return null;
  if (origins === '*') return '*';
  for (const origin of origins) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      // refused below
    }
    if (!parsed || parsed.origin !== origin || !/^https?:$/.test(parsed.protocol)) {
      throw new RangeError(
        `"corsOrigins" expected origins like https://shop.example (scheme, host, optional port), got ${JSON.stringify(origin).slice(0, 80)}`,
      );
    }
  }
  return origins.length === 0 ? null : new Set(origins);
}

/**
 * The `Access-Control-Allow-Origin` value for a request's `Origin`, or `null` when the page may not
 * read the reply. With an origin list, replies vary by `Origin`.
 */
export function allowedOrigin(origins: CorsOrigins, origin: string | undefined): string | null {
  if (origins === null) return null;
  if (origins === '*') return '*';
  return typeof origin === 'string' && origins.has(origin) ? origin : null;
}
