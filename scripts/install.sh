#!/usr/bin/env bash
# Installs the entire binary into $(go env GOPATH)/bin, stamped with the
# commit it is built from, and prints its version.
set -euo pipefail
cd "$(dirname "$0")/.."
commit="$(git rev-parse HEAD 2>/dev/null || echo dev)"
if [ "$commit" != dev ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  commit="$commit-dirty"
fi
go install -ldflags "-X main.commit=$commit" ./cmd/entire
bin="$(go env GOBIN)"; [ -n "$bin" ] || bin="$(go env GOPATH)/bin"
"$bin/entire" version
case ":$PATH:" in *":$bin:"*) ;; *) echo "note: add $bin to your PATH";; esac
