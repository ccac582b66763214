#!/bin/sh
# The browser tests drive Debian's chromium (/usr/bin/chromium) with Playwright: install it when
# it is missing (as root, or through sudo).
set -e
[ -x /usr/bin/chromium ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
    echo "Error: /usr/bin/chromium is missing and there is no apt-get to install it; install chromium" >&2
    exit 2
fi
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
echo "installing chromium for the browser tests..." >&2
$SUDO apt-get install -y chromium >/dev/null || { $SUDO apt-get update >/dev/null && $SUDO apt-get install -y chromium >/dev/null; }
