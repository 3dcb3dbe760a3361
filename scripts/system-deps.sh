#!/usr/bin/env bash
# Machine packages the test suites need besides what scripts/build.mjs builds: PostgreSQL 15 (the
# pool and facilitator suites start throwaway clusters), Chromium (the browser suite drives it
# through playwright-core), nginx (the stock-merchants suite puts a merchant behind it, on its
# default header buffers; Debian 12's smallest package with /usr/sbin/nginx is `nginx` itself —
# nginx-light is a transitional package depending on it) and promtool (from Debian's prometheus:
# the alert rules' unit tests). As root on Debian they are installed; otherwise the exact command is
# printed and the script fails. Run by `npm test` (scripts/test.mjs) before the suites.
set -euo pipefail

missing=()
[ -x /usr/lib/postgresql/15/bin/initdb ] || command -v initdb >/dev/null 2>&1 || missing+=(postgresql-15)
command -v chromium >/dev/null 2>&1 || [ -n "${CHROMIUM_PATH:-}" ] || missing+=(chromium)
[ -x /usr/sbin/nginx ] || [ -n "${NGINX_PATH:-}" ] || missing+=(nginx)
command -v promtool >/dev/null 2>&1 || [ -n "${PROMTOOL:-}" ] || missing+=(prometheus)

[ "${#missing[@]}" -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "[system-deps] installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 || {
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  }
  # Debian starts a cluster for a freshly installed server; the suites use their own.
  if [[ " ${missing[*]} " == *" postgresql-15 "* ]] && command -v pg_ctlcluster >/dev/null 2>&1; then
    pg_ctlcluster 15 main stop >/dev/null 2>&1 || true
  fi
  # Debian starts nginx on port 80 after installing it; the suite starts its own.
  if [[ " ${missing[*]} " == *" nginx "* ]]; then
    /usr/sbin/nginx -s quit >/dev/null 2>&1 || true
  fi
  # Only promtool is wanted from the prometheus package: no server of it keeps running.
  if [[ " ${missing[*]} " == *" prometheus "* ]]; then
    service prometheus stop >/dev/null 2>&1 || true
  fi
else
  echo "[system-deps] missing ${missing[*]}: run  sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
