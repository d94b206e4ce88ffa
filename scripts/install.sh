#!/usr/bin/env bash
# Installs the entire binary, and entire-web (the server `entire web`
# runs), into $(go env GOPATH)/bin, stamped with the commit they are built
# from, and prints the version.
set -euo pipefail
cd "$(dirname "$0")/.."
commit="$(git rev-parse HEAD 2>/dev/null || echo dev)"
if [ "$commit" != dev ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  commit="$commit-dirty"
fi
go install -ldflags "-X github.com/entirecli/entire/cmd/entire/cli.commit=$commit" ./cmd/entire ./cmd/entire-web
bin="$(go env GOBIN)"; [ -n "$bin" ] || bin="$(go env GOPATH)/bin"
"$bin/entire" version
case ":$PATH:" in *":$bin:"*) ;; *) echo "note: add $bin to your PATH";; esac
