// A note's minimum age (docs/privacy.md, "Notes"), with injected clocks and draws — no real time
// waited: two epochs plus an exponential delay drawn per note, none without an epoch or lengths; a
// young note is not spent (NoteTooYoungError, a WalletBehindError) until its age, and its twin under
// spendNow is spent with one warning; a note a payment showed without settling pays nothing until
// refreshed (note_needs_refresh), its twin — the same note never shown — pays.

import { describe, expect, it } from 'vitest';

import { NoteTooYoungError, type StoredNote, WalletBehindError } from '../../src/client/index.js';
import { exponentialMs, NoteAges } from '../../src/client/note-age.js';
import { NoteReservations } from '../../src/client/note-reservations.js';
import type { WalletContext } from '../../src/client/wallet-context.js';
import { coveringNote, shownNotes, spendableNotes } from '../../src/client/wallet-notes.js';

const EPOCH = 60_000;

function note(i: number, value: string, extra: Partial<StoredNote> = {}): StoredNote {
  const hex = `0x${i.toString(16).padStart(64, '0')}` as StoredNote['commitment'];
  return {
    commitment: hex,
    value,
    rho: hex,
    index: i,
    nullifier: hex,
    origin: 'deposit',
    ...extra,
  };
}

/** The parts of a wallet's context the note rules read, over a real NoteAges. */
function context(notes: StoredNote[], ages: NoteAges, pending: unknown[] = []): WalletContext {
  return {
    state: { notes, pending, checkpoint: { seq: 1, root: '0x', size: 100, time: 0 } },
    reserved: new NoteReservations(),
    noteAges: ages,
  } as unknown as WalletContext;
}

describe('minimum age', () => {
  it('is two epochs plus an exponential draw of mean one epoch, from the event time', () => {
    const draws = [0, 0.5, 0.99];
    const ages = new NoteAges(
      { random: () => draws.shift()! },
      () => EPOCH,
      () => 0,
    );
    expect(ages.matureAt(1_000)).toBe(1_000 + 2 * EPOCH);
    expect(ages.matureAt(1_000)).toBe(1_000 + 2 * EPOCH + Math.ceil(EPOCH * Math.log(2)));
    expect(ages.matureAt(1_000)).toBe(1_000 + 2 * EPOCH + Math.ceil(-EPOCH * Math.log(0.01)));
  });

  it('has mean one epoch over many draws (an even grid of uniforms)', () => {
    const n = 10_000;
    let sum = 0;
    for (let i = 0; i < n; i++) sum += exponentialMs(EPOCH, (i + 0.5) / n);
    expect(Math.abs(sum / n - EPOCH) / EPOCH).toBeLessThan(0.01);
  });

  it('applies none while the pool publishes no epoch and no lengths are given; lengths apply alone', () => {
    expect(
      new NoteAges(
        {},
        () => null,
        () => 0,
      ).matureAt(5),
    ).toBeUndefined();
    expect(
      new NoteAges(
        { baseMs: 10, meanExtraMs: 0 },
        () => null,
        () => 0,
      ).matureAt(5),
    ).toBe(15);
    expect(
      () =>
        new NoteAges(
          { baseMs: -1 },
          () => null,
          () => 0,
        ),
    ).toThrow(RangeError);
  });

  it('keeps a young note from paying until its age; the injected clock moves it', () => {
    let now = 0;
    const ages = new NoteAges(
      { clock: () => now },
      () => EPOCH,
      () => 0,
    );
    const young = note(1, '5000', { matureAt: 1_000 });
    const ctx = context([young], ages);
    expect(spendableNotes(ctx)).toEqual([]);
    const refused = (() => {
      try {
        coveringNote(ctx, 100n);
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(NoteTooYoungError);
    expect(refused).toBeInstanceOf(WalletBehindError);
    expect((refused as NoteTooYoungError).code).toBe('note_too_young');
    expect((refused as NoteTooYoungError).matureAt).toBe(1_000);
    now = 1_000;
    expect(coveringNote(ctx, 100n).commitment).toBe(young.commitment);
  });

  it('prefers an old note over a younger smaller one, and a note from before the rule is old', () => {
    const ages = new NoteAges(
      { clock: () => 0 },
      () => EPOCH,
      () => 0,
    );
    const ctx = context([note(1, '2000', { matureAt: 10 }), note(2, '9000')], ages);
    expect(coveringNote(ctx, 100n).index).toBe(2);
  });

  it('spendNow spends a young note, warning once (the twin)', () => {
    const warnings: string[] = [];
    const ages = new NoteAges(
      { spendNow: true, clock: () => 0, onWarning: (m) => warnings.push(m) },
      () => EPOCH,
      () => 0,
    );
    const ctx = context([note(1, '5000', { matureAt: 1_000 })], ages);
    expect(coveringNote(ctx, 100n).index).toBe(1);
    expect(coveringNote(ctx, 100n).index).toBe(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/spend-now/);
  });
});

describe('refresh before reuse', () => {
  const ages = new NoteAges(
    {},
    () => null,
    () => 0,
  );
  const shown = note(1, '5000');
  const expired = { note: shown.commitment, status: 'expired' };

  it('a note whose payment expired pays nothing until refreshed (note_needs_refresh)', () => {
    const ctx = context([shown], ages, [expired]);
    expect([...shownNotes(ctx)]).toEqual([shown.commitment]);
    expect(spendableNotes(ctx)).toEqual([]);
    expect(() => coveringNote(ctx, 100n)).toThrow(
      expect.objectContaining({ code: 'note_needs_refresh' }),
    );
  });

  it('the twin: the same note never shown pays; a shown note once spent is no longer listed', () => {
    expect(coveringNote(context([shown], ages), 100n).commitment).toBe(shown.commitment);
    const spent = { ...shown, spent: { settlementId: 't', eventId: 2 } };
    expect(shownNotes(context([spent], ages, [expired])).size).toBe(0);
  });
});
