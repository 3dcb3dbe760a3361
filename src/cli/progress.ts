/**
 * @module Timed steps for the CLI. Each step ends as one line, `[  1.23 s]  label (456 ms)` (time
 * since the start, then the step's own time). On a terminal the step is shown while it runs — a
 * spinner and its elapsed time on the current line, redrawn in place (a few ANSI sequences) — and
 * resolves to that same line; elsewhere (pipes, CI, `TERM=dumb`) only the final lines are written,
 * so the output stays the same plain text to parse.
 */

/** Where the lines go: a stream, with `isTTY` when it is a terminal. */
export interface ProgressOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** Runs and prints steps. */
export interface Progress {
  /** Runs `run` as a step; prints its line once it ends (a failed step is marked and rethrown). */
  step<T>(label: string, run: () => Promise<T>): Promise<T>;
  /** A detail line under the last step. */
  note(text: string): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const FRAME_MS = 80;
const CLEAR_LINE = '\r\x1b[2K';

/** Indent of detail lines: under the label, past the time column. */
export const NOTE_INDENT = ' '.repeat(12);

/** Whether to draw live on `output`: a terminal that understands ANSI, outside CI. */
export function isLiveTerminal(
  output: ProgressOutput,
  env: Record<string, string | undefined>,
): boolean {
  return output.isTTY === true && env.TERM !== 'dumb' && !env.CI;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/**
 * The progress display.
 * @param live draw the running step in place (see {@link isLiveTerminal})
 * @example
 * const progress = createProgress(process.stdout, isLiveTerminal(process.stdout, process.env));
 * const core = await progress.step('core loaded', () => loadCore());
 */
export function createProgress(
  output: ProgressOutput,
  live: boolean,
  now: () => number = () => performance.now(),
): Progress {
  const t0 = now();
  const line = (label: string, ms: number) =>
    `${`[${seconds(now() - t0)}]`.padEnd(11)} ${label} (${ms.toFixed(0)} ms)`;
  // A running line wider than the terminal would wrap, and `\r` would then redraw only its last row.
  const fitToWidth = (text: string) =>
    output.columns && text.length >= output.columns
      ? `${text.slice(0, Math.max(0, output.columns - 2))}…`
      : text;

  return {
    async step(label, run) {
      const started = now();
      let timer: ReturnType<typeof setInterval> | undefined;
      if (live) {
        let frame = 0;
        const draw = () =>
          output.write(
            `${CLEAR_LINE}${fitToWidth(`${FRAMES[frame++ % FRAMES.length]} ${label} ${seconds(now() - started)}`)}`,
          );
        draw();
        timer = setInterval(draw, FRAME_MS);
      }
      const finish = (text: string) => {
        if (timer) clearInterval(timer);
        output.write(live ? `${CLEAR_LINE}${text}\n` : `${text}\n`);
      };
      try {
        const value = await run();
        finish(line(label, now() - started));
        return value;
      } catch (error) {
        finish(line(`${label}: failed`, now() - started));
        throw error;
      }
    },
    note(text) {
      output.write(`${NOTE_INDENT}${text}\n`);
    },
  };
}
