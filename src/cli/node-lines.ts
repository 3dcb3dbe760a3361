/**
 * @module Whether this Node is one of the lines the package supports, read from `engines.node` in
 * its package.json (`^22.20.0 || ^24.12.0 || >=26.0.0`: alternatives of `^X.Y.Z` or `>=X.Y.Z`).
 */

type Version = readonly [number, number, number];

function parse(text: string): Version | null {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : null;
}

function atLeast(a: Version, b: Version): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! > b[i]!;
  return true;
}

/**
 * Whether `version` (e.g. `process.version`) satisfies `range`; `null` when the range has a form
 * this does not read (then nothing is claimed either way).
 */
export function satisfiesEngines(version: string, range: string): boolean | null {
  const current = parse(version);
  if (!current) return null;
  let satisfied = false;
  for (const alternative of range.split('||').map((a) => a.trim())) {
    const caret = alternative.startsWith('^');
    const floor = alternative.startsWith('>=');
    const bound = parse(alternative.slice(caret ? 1 : floor ? 2 : 0));
    if ((!caret && !floor) || !bound) return null;
    if (atLeast(current, bound) && (!caret || current[0] === bound[0])) satisfied = true;
  }
  return satisfied;
}
