#!/usr/bin/env bash
# setup_browser.sh - install a headless browser for the report's browser test
# (reports/tests/test_browser.py): Chromium from the Debian/Ubuntu packages,
# only when no Chromium is on PATH already. Prints the browser's path on stdout.
#
# Exit status: 0 a browser is there (installed now or before); 3 no apt-get
# (the test then skips, saying so); 1 apt-get could not install it.
# The download is about 100 MB once; later calls return at once.
set -euo pipefail

say() { printf 'setup_browser: %s\n' "$*" >&2; }

find_browser() {
    local name
    for name in chromium chromium-browser google-chrome; do
        if command -v "$name" >/dev/null 2>&1; then
            command -v "$name"
            return 0
        fi
    done
    return 1
}

if find_browser; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
    say "apt-get not found: install Chromium by hand to run the browser test"
    exit 3
fi
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
# Debian names the package chromium; Ubuntu's chromium-browser is a snap shim.
say "installing chromium (apt-get)"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    chromium fonts-dejavu-core >/dev/null || { say "apt-get install chromium failed"; exit 1; }
find_browser || { say "chromium installed but not on PATH"; exit 1; }
