// The CLI's timed steps: plain lines when not on a terminal, a live line redrawn in place that
// resolves to the same line on one, and a failed step marked and rethrown.

import { describe, expect, it } from 'vitest';

import { createProgress, isLiveTerminal } from '../../src/cli/progress.js';

/** A stream that keeps what is written, and a clock the test moves. */
function capture(isTTY: boolean) {
  const writes: string[] = [];
  let t = 1000;
  return {
    output: { isTTY, columns: 40, write: (text: string) => writes.push(text) },
    writes,
    now: () => t,
    advance: (ms: number) => (t += ms),
  };
}

describe('timed steps', () => {
  it('are plain lines off a terminal', async () => {
    const { output, writes, now, advance } = capture(false);
    const progress = createProgress(output, false, now);
    const value = await progress.step('core loaded', async () => {
      advance(1234);
      return 42;
    });
    progress.note('HTTP 200');
    expect(value).toBe(42);
    expect(writes.join('')).toBe('[1.23 s]    core loaded (1234 ms)\n            HTTP 200\n');
  });

  it('are drawn in place on a terminal and end as the same line', async () => {
    const { output, writes, now, advance } = capture(true);
    const progress = createProgress(output, true, now);
    await progress.step('a step with a long label that does not fit', async () => {
      advance(250);
    });
    const text = writes.join('');
    // The running line: cleared and redrawn, cut to the terminal's width; then the final line.
    expect(writes[0]).toBe('\r\x1b[2K⠋ a step with a long label that does n…');
    expect(
      text.endsWith('\r\x1b[2K[0.25 s]    a step with a long label that does not fit (250 ms)\n'),
    ).toBe(true);
  });

  it('mark a failed step and rethrow its error', async () => {
    const { output, writes, now } = capture(false);
    const progress = createProgress(output, false, now);
    await expect(progress.step('pay', () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    expect(writes).toEqual(['[0.00 s]    pay: failed (0 ms)\n']);
  });

  it('are live only on a terminal outside CI that understands ANSI', () => {
    expect(isLiveTerminal({ isTTY: true, write: () => true }, { TERM: 'xterm-256color' })).toBe(
      true,
    );
    expect(isLiveTerminal({ isTTY: false, write: () => true }, { TERM: 'xterm-256color' })).toBe(
      false,
    );
    expect(isLiveTerminal({ isTTY: true, write: () => true }, { TERM: 'dumb' })).toBe(false);
    expect(isLiveTerminal({ isTTY: true, write: () => true }, { TERM: 'xterm', CI: 'true' })).toBe(
      false,
    );
  });
});
