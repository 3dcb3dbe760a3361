/** The types of `proxy-from-env` (the package ships none): the proxy the environment names for a URL. */
declare module 'proxy-from-env' {
  /** The proxy URL for `url` from `*_PROXY` and `ALL_PROXY` (either case), `''` when none or `NO_PROXY` matches. */
  export function getProxyForUrl(url: string | URL): string;
}
