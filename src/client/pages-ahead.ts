/**
 * @module Reading fixed pages of the pool node's public log ahead: pages `first … last` of a list
 * (the same URLs for every wallet, whatever it has read), with requests in flight ahead of the
 * page being applied, so that applying a page and fetching the next ones overlap (the wallet's
 * sync reads leaves and events this way). The caller keeps what it lacks from each page and stops
 * where a page comes back short: the source holds nothing past it.
 */

/** A request made ahead of its use: its failure is reported where it is awaited, never as unhandled. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** Requests in flight ahead of the page being applied (leaves and events each). */
const PAGES_AHEAD = 2;

/**
 * Pages `first` to `last` (inclusive) in order, each read by `read`, with {@link PAGES_AHEAD}
 * requests in flight ahead of the page handed out. Breaking out of the loop leaves the requests
 * ahead to finish unheard.
 */
export async function* pagesAhead<T>(
  first: number,
  last: number,
  read: (page: number) => Promise<T>,
): AsyncGenerator<{ page: number; value: T }> {
  const queue: { page: number; value: Promise<T> }[] = [];
  let next = first;
  const fill = () => {
    while (queue.length <= PAGES_AHEAD && next <= last) {
      queue.push({ page: next, value: quiet(read(next)) });
      next++;
    }
  };
  fill();
  while (queue.length > 0) {
    const { page, value } = queue.shift()!;
    const read = await value;
    fill();
    yield { page, value: read };
  }
}
