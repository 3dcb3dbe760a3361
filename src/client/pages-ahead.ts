/**
 * @module Reading a paged list of the pool node ahead: the pages of a list addressed by position,
 * with requests in flight ahead of the page being applied, so that applying a page and fetching the
 * next ones overlap (the wallet's sync reads leaves and events this way).
 */

/** A request made ahead of its use: its failure is reported where it is awaited, never as unhandled. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** Requests in flight ahead of the page being applied (leaves and events each). */
const PAGES_AHEAD = 2;

/**
 * The pages of a list addressed by position (leaves from `at`, events after id `at`: both without
 * gaps) up to `end`, with {@link PAGES_AHEAD} requests in flight ahead of the page handed out. A
 * short page drops the read-ahead and goes on from where it ended; an empty one ends the read.
 */
export async function* pagesAhead<T>(
  start: number,
  end: number,
  size: number,
  read: (at: number, limit: number) => Promise<T[]>,
): AsyncGenerator<{ at: number; items: T[] }> {
  const queue: { at: number; limit: number; page: Promise<T[]> }[] = [];
  let next = start;
  const fill = () => {
    while (queue.length <= PAGES_AHEAD && next < end) {
      const limit = Math.min(size, end - next);
      queue.push({ at: next, limit, page: quiet(read(next, limit)) });
      next += limit;
    }
  };
  fill();
  while (queue.length > 0) {
    const { at, limit, page } = queue.shift()!;
    const items = (await page).slice(0, limit);
    if (items.length === 0) return;
    if (items.length < limit) {
      queue.length = 0;
      next = at + items.length;
    }
    fill();
    yield { at, items };
  }
}
