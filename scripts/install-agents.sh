#!/usr/bin/env bash
# Installs the real agent clients that the real-agent test tier runs, each
# twice: the pinned version (the tier's whole scenario list runs against
# it) and the newest published one (`npm view`; the core scenarios run
# against it, since users upgrade weekly). Each version goes into a
# directory of its own under the cache directory (ENTIRE_AGENTS_DIR,
# default ~/.cache/entire-agents), installed once; clients.json there
# tells the tier what was installed:
#
#   {"claude": {"pinned": "2.1.197", "newest": "2.1.332"}, ...}
#
#   CLAUDE_CODE_VERSION=2.1.200 scripts/install-agents.sh    # another pinned version
#   ENTIRE_AGENTS_NEWEST=0 scripts/install-agents.sh         # the pinned ones only
#
# OpenCode installs @opencode-ai/plugin into every config directory that
# lacks it when it starts, and waits for the install (70 s of retries on a
# machine without the registry): its version of that package is installed
# beside it here, in <dir>/opencode-<version>/plugin-deps, for the tier to
# seed the config directories with. Factory droid's npm shim names a
# platform package that was never published for 0.225.1: the platform
# binary comes from its own package (DROID_VERSION) beside the shim.
#
# Without the registry (offline), the newest versions installed before
# stay the newest. Needs node and npm.
set -euo pipefail

dir="${ENTIRE_AGENTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/entire-agents}"
# name, npm package, binary, pinned version
clients=(
  "claude @anthropic-ai/claude-code claude ${CLAUDE_CODE_VERSION:-2.1.197}"
  "gemini @google/gemini-cli gemini ${GEMINI_CLI_VERSION:-0.61.0}"
  "codex @openai/codex codex ${CODEX_VERSION:-0.171.0}"
  "copilot @github/copilot copilot ${COPILOT_CLI_VERSION:-1.0.102}"
  "opencode opencode-ai opencode ${OPENCODE_VERSION:-1.18.33}"
  "pi @mariozechner/pi-coding-agent pi ${PI_VERSION:-0.73.1}"
  "droid @factory/cli droid ${DROID_VERSION:-0.225.2}"
)
# Clients whose newest version is not installed: droid's newest shims have
# named unpublished platform packages before, and its tier is one turn.
pinned_only=" droid "

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "install-agents: node and npm are needed (none found)" >&2
  exit 1
fi
mkdir -p "$dir"

# reports prints a client's version as its --version says it.
reports() {
  local name=$1 bin=$2
  case "$name" in
    claude) "$bin" --version 2>/dev/null | awk '{print $1}' ;;
    codex) "$bin" --version 2>/dev/null | awk '{print $NF}' ;;
    pi) "$bin" --version 2>&1 | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1 ;;
    copilot | droid) "$bin" --version 2>/dev/null | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1 ;;
    *) "$bin" --version 2>/dev/null ;;
  esac
}

# install puts package@version into its own directory, once.
install() {
  local name=$1 pkg=$2 binname=$3 version=$4
  local prefix="$dir/$name-$version"
  local bin="$prefix/node_modules/.bin/$binname"
  if [ "$name" = opencode ] && [ ! -f "$prefix/plugin-deps/node_modules/@opencode-ai/plugin/package.json" ]; then
    npm install --prefix "$prefix/plugin-deps" --no-audit --no-fund --loglevel=error "@opencode-ai/plugin@$version"
  fi
  if [ -x "$bin" ] && [ "$(reports "$name" "$bin")" = "$version" ]; then
    return 0
  fi
  echo "install-agents: installing $pkg@$version into $prefix"
  case "$name" in
    droid)
      npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
        "$pkg@${DROID_SHIM_VERSION:-0.225.1}" "@factory/cli-linux-x64@$version" ;;
    *)
      npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "$pkg@$version" ;;
  esac
  # Claude Code brings its native binary through a platform package; npm
  # may skip the postinstall that links it.
  if [ "$name" = claude ] && ! "$bin" --version >/dev/null 2>&1; then
    (cd "$prefix/node_modules/$pkg" && node install.cjs)
  fi
  if [ "$(reports "$name" "$bin")" != "$version" ]; then
    echo "install-agents: $pkg@$version reports $(reports "$name" "$bin" || true)" >&2
    exit 1
  fi
}

# previous prints the newest version of a client recorded by an earlier run.
previous() {
  [ -f "$dir/clients.json" ] || return 0
  node -e 'const c = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log((c[process.argv[2]] || {}).newest || "")' "$dir/clients.json" "$1"
}

json="{"
sep=""
for line in "${clients[@]}"; do
  read -r name pkg binname pinned <<<"$line"
  install "$name" "$pkg" "$binname" "$pinned"
  newest="$pinned"
  if [ "${ENTIRE_AGENTS_NEWEST:-1}" != 0 ] && [[ $pinned_only != *" $name "* ]]; then
    if published=$(timeout 60 npm view "$pkg" version 2>/dev/null) && [ -n "$published" ]; then
      newest="$published"
    elif [ -n "$(previous "$name")" ]; then
      newest="$(previous "$name")"
      echo "install-agents: the registry did not answer; $name's newest stays $newest"
    fi
    install "$name" "$pkg" "$binname" "$newest"
  fi
  echo "install-agents: $name pinned $pinned, newest $newest"
  json="$json$sep\"$name\": {\"pinned\": \"$pinned\", \"newest\": \"$newest\"}"
  sep=", "
done
json="$json}"
tmp=$(mktemp "$dir/clients.json.XXXXXX")
echo "$json" > "$tmp"
mv "$tmp" "$dir/clients.json"
