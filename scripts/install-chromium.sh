#!/usr/bin/env bash
# Installs Debian's Chromium for the browser test tier of `entire web`
# (cmd/entire/e2e/browser), unless a Chromium is already there. Run as root
# or with sudo; CI runs it from .ci/run.
set -euo pipefail
for bin in chromium chromium-browser google-chrome; do
  if command -v "$bin" >/dev/null 2>&1; then
    echo "chromium: $(command -v "$bin")"
    exit 0
  fi
done
sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
echo "chromium: $(command -v chromium)"
