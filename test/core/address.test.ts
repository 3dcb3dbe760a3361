// Shielded addresses on both backends: round trip, and every corruption refused with
// invalid_address.

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

import { CoreError, type PrivStarkCore, loadBackend } from '../../src/index.js';
import { BACKENDS, readVectors } from '../helpers/backends.js';

const notes = readVectors<{ owner: string }>('notes.json');

describe.each(BACKENDS)('%s backend: shielded addresses', (backend) => {
  let core: PrivStarkCore;
  beforeAll(async () => {
    core = await loadBackend(backend);
  });

  it('round-trips an owner, and refuses its corrupted twins', () => {
    const address = core.encodeAddress(notes.owner);
    expect(address).toMatch(/^pstark1[02-9ac-hj-np-z]{58}$/);
    expect(core.decodeAddress(address)).toBe(notes.owner);
    const typo = `${address.slice(0, 20)}${address[20] === 'q' ? 'p' : 'q'}${address.slice(21)}`;
    for (const bad of [
      typo,
      address.toUpperCase(),
      address.replace('pstark', 'pstarx'),
      address.slice(0, -1),
      `${address}q`,
      '',
    ]) {
      expect(() => core.decodeAddress(bad)).toThrow(
        expect.objectContaining({ code: 'invalid_address' }) as unknown as Error,
      );
    }
  });

  it('never accepts random text that is not an address', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        try {
          const owner = core.decodeAddress(text);
          expect(core.encodeAddress(owner)).toBe(text);
        } catch (error) {
          expect(error).toBeInstanceOf(CoreError);
        }
      }),
      { numRuns: 300 },
    );
  });
});
