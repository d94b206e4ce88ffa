#!/usr/bin/env bash
# Installs the real agent clients that the real-agent test tier runs:
# exactly Claude Code 2.1.197 and Gemini CLI 0.61.0, with npm, into a cache
# directory (ENTIRE_AGENTS_DIR, default ~/.cache/entire-agents). The tests
# find them there; without them the tier skips (or fails under CI).
#
#   CLAUDE_CODE_VERSION=2.1.200 GEMINI_CLI_VERSION=0.62.0 scripts/install-agents.sh
#
# tries newer versions instead. A second run with the same versions does
# nothing. Needs node and npm.
set -euo pipefail

claude_version="${CLAUDE_CODE_VERSION:-2.1.197}"
gemini_version="${GEMINI_CLI_VERSION:-0.61.0}"
dir="${ENTIRE_AGENTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/entire-agents}"

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "install-agents: node and npm are needed (none found)" >&2
  exit 1
fi

mkdir -p "$dir"
bin="$dir/node_modules/.bin"
installed() {
  [ -x "$bin/claude" ] && [ -x "$bin/gemini" ] &&
    [ "$("$bin/claude" --version 2>/dev/null | awk '{print $1}')" = "$claude_version" ] &&
    [ "$("$bin/gemini" --version 2>/dev/null)" = "$gemini_version" ]
}

if installed; then
  echo "install-agents: Claude Code $claude_version and Gemini CLI $gemini_version already in $dir"
  exit 0
fi

echo "install-agents: installing Claude Code $claude_version and Gemini CLI $gemini_version into $dir"
# --prefix keeps everything in the cache directory; the exact versions are
# pinned so that a run is reproducible.
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
  "@anthropic-ai/claude-code@$claude_version" "@google/gemini-cli@$gemini_version"

# Claude Code brings its native binary through a platform package; npm may
# skip the postinstall that links it.
if ! "$bin/claude" --version >/dev/null 2>&1; then
  (cd "$dir/node_modules/@anthropic-ai/claude-code" && node install.cjs)
fi

if ! installed; then
  echo "install-agents: the clients do not report the expected versions:" >&2
  "$bin/claude" --version >&2 || true
  "$bin/gemini" --version >&2 || true
  exit 1
fi
echo "install-agents: $("$bin/claude" --version), Gemini CLI $("$bin/gemini" --version)"
