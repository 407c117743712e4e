#!/bin/sh
# Makes sure Debian's chromium is installed, for test/node/docs-offline.test.ts (Swagger UI rendered
# with no internet). Installs it with apt-get when missing and running as root; otherwise says why
# not and exits 1 (the test then skips, saying so). Prints the browser's path on success.
set -e
case "${1-}" in
  "") ;;
  -h|--help)
    echo "Usage: sh scripts/ensure-chromium.sh"
    echo
    echo "Prints the path of Debian's chromium (CHROMIUM_PATH, else /usr/bin/chromium), installing it"
    echo "with apt-get when missing and running as root; otherwise says why not and exits 1. Takes no options."
    exit 0 ;;
  *) echo "ensure-chromium.sh: unknown option '$1' (--help for the usage)" >&2; exit 2 ;;
esac
CHROMIUM=${CHROMIUM_PATH:-/usr/bin/chromium}
if [ -x "$CHROMIUM" ]; then echo "$CHROMIUM"; exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "no $CHROMIUM and no apt-get: install Chromium and set CHROMIUM_PATH" >&2; exit 1
fi
if [ "$(id -u)" != 0 ]; then
  echo "no $CHROMIUM and not root: run 'sudo apt-get install -y chromium' (or set CHROMIUM_PATH)" >&2; exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# The package lists may be missing (a fresh container) or stale; one update, then the install.
apt-get install -y --no-install-recommends chromium >&2 || { apt-get update >&2 && apt-get install -y --no-install-recommends chromium >&2; }
[ -x "$CHROMIUM" ] || { echo "apt-get installed chromium but $CHROMIUM is missing" >&2; exit 1; }
echo "$CHROMIUM"
