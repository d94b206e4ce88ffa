#!/usr/bin/env bash
# demo.sh: see entire work without an agent installed.
#
# It builds entire, makes a scratch repository, plays a short Claude Code
# session that this script writes itself (transcript lines and file edits)
# through the real hooks turn by turn, commits, and shows `entire status`,
# `entire explain`, `entire rewind --list`, a rewind and its undo.
#
# Nothing outside the scratch directory is touched: the agent's session
# directory is redirected into it. Usage: scripts/demo.sh [--keep]
# (ENTIRE_BIN=/path/to/entire uses that binary instead of building one).
set -euo pipefail

keep=0
[[ "${1:-}" == "--keep" ]] && keep=1

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/entire-demo.XXXXXX")"
cleanup() { if [[ $keep == 0 ]]; then rm -rf "$work"; else echo "Kept $work"; fi; }
trap cleanup EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '\033[2m$ %s\033[0m\n' "$*"; "$@"; }

mkdir -p "$work/bin" "$work/claude-projects"
if [[ -n "${ENTIRE_BIN:-}" ]]; then
  cp "$ENTIRE_BIN" "$work/bin/entire"
else
  step "Building entire"
  (cd "$root" && go build -o "$work/bin/entire" ./cmd/entire)
fi
export PATH="$work/bin:$PATH"
# Where Claude Code would keep its transcripts; rewind writes there too.
export ENTIRE_TEST_CLAUDE_PROJECT_DIR="$work/claude-projects"
# Commits below run without a terminal: link them to the session without asking.
export ENTIRE_TEST_TTY=0
export ENTIRE_TELEMETRY_OPTOUT=1

repo="$work/repo"
session="demo-$(date +%s)"
transcript="$ENTIRE_TEST_CLAUDE_PROJECT_DIR/$session.jsonl"

step "A scratch repository with Entire enabled"
mkdir -p "$repo" && cd "$repo"
git init -q -b main
git config user.name >/dev/null || git config user.name "Demo User"
git config user.email >/dev/null || git config user.email "demo@example.com"
git config commit.gpgsign false
printf '# Demo\n' > README.md
git add README.md && git commit -q -m "Initial commit"
show entire enable --agent claude-code --telemetry=false
git add -A && git commit -q -m "Enable Entire"

now() { date -u +%Y-%m-%dT%H:%M:%S.000Z; }

# hook VERB JSON-FIELDS: run one Claude Code hook the way Claude Code does.
hook() {
  local verb=$1 extra=${2:-}
  printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","hook_event_name":"%s"%s}' \
    "$session" "$transcript" "$repo" "$verb" "$extra" | entire hooks claude-code "$verb" >/dev/null
}

# line JSON: append one transcript line, as Claude Code does while it works.
line() { printf '%s\n' "$1" >> "$transcript"; }

turns=0
# turn PROMPT FILE CONTENT REPLY: one agent turn that writes FILE.
turn() {
  local prompt=$1 file=$2 content=$3 reply=$4
  turns=$((turns + 1))
  echo "Turn $turns: \"$prompt\" (writes $file)"
  hook user-prompt-submit ",\"prompt\":\"$prompt\""
  line "{\"type\":\"user\",\"uuid\":\"u$turns\",\"timestamp\":\"$(now)\",\"message\":{\"role\":\"user\",\"content\":\"$prompt\"}}"
  mkdir -p "$(dirname "$file")"
  printf '%b' "$content" > "$file"
  line "{\"type\":\"assistant\",\"uuid\":\"t$turns\",\"timestamp\":\"$(now)\",\"message\":{\"id\":\"msg_t$turns\",\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_$turns\",\"name\":\"Write\",\"input\":{\"file_path\":\"$repo/$file\"}}],\"usage\":{\"input_tokens\":1200,\"cache_read_input_tokens\":800,\"output_tokens\":150}}}"
  line "{\"type\":\"user\",\"uuid\":\"r$turns\",\"timestamp\":\"$(now)\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_$turns\",\"content\":\"File written\"}]}}"
  line "{\"type\":\"assistant\",\"uuid\":\"a$turns\",\"timestamp\":\"$(now)\",\"message\":{\"id\":\"msg_a$turns\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"$reply\"}],\"usage\":{\"input_tokens\":300,\"output_tokens\":40}}}"
  hook stop
}

step "Playing a Claude Code session through the hooks"
hook session-start ',"source":"startup"'
turn "Add a greeting script" hello.sh '#!/bin/sh\necho "Hello, world"\n' "I added hello.sh, which prints a greeting."
turn "Make it greet by name" hello.sh '#!/bin/sh\necho "Hello, ${1:-world}"\n' "hello.sh now takes an optional name."

step "Status while the session runs"
show entire status

step "Committing the agent's work (the git hooks link the commit to the session)"
git add hello.sh
show git commit -q -m "Add greeting script"
show git log -1 --format=%B

step "What happened, according to Entire"
show entire explain --no-pager
show entire explain --commit HEAD --no-pager

step "One more turn, not committed"
turn "Add a farewell script" bye.sh '#!/bin/sh\necho "Goodbye"\n' "I added bye.sh."
turn "Make the farewell louder" bye.sh '#!/bin/sh\necho "GOODBYE!"\n' "bye.sh now shouts."

step "The list now has the uncommitted turns too, as a temporary checkpoint"
show entire explain --no-pager

if ! entire rewind --help >/dev/null 2>&1; then
  step "Rewind"
  echo "(entire rewind is not in this build yet: skipping the rewind and its undo.)"
  exit 0
fi

step "Rewind points"
show entire rewind --list
# The second newest point is the end of the previous turn.
point=$(entire rewind --list | grep -o '"id": *"[0-9a-f]*"' | sed -n 2p | grep -o '[0-9a-f]\{7,\}')

step "Rewinding to the turn before"
show entire rewind --to "$point"
show cat bye.sh

step "Undoing the rewind"
show entire rewind --undo
show cat bye.sh

step "Done"
echo "That was a real repository: run scripts/demo.sh --keep to look around in it."
