// The merchant's Next.js configuration. `priv-stark` is the repository itself, linked into
// node_modules by scripts/next-merchant.mjs; webpack's resolver keeps the link's path
// (`symlinks: false`), so the package's own imports resolve as an installed package's do — from
// its own node_modules, where its @x402/core is 2.27 — while @x402/next brings @x402/core 2.25.
// The two meet only through the interfaces they share (docs/ecosystem.md).

import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  // This directory is the app, although the repository around it has a lockfile of its own.
  outputFileTracingRoot: dirname(fileURLToPath(import.meta.url)),
  webpack: (config) => {
    config.resolve.symlinks = false;
    return config;
  },
};

export default nextConfig;
