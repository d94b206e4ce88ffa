#!/usr/bin/env bash
# Installs the entire binary into $(go env GOPATH)/bin and prints its version.
set -euo pipefail
cd "$(dirname "$0")/.."
go install ./cmd/entire
bin="$(go env GOBIN)"; [ -n "$bin" ] || bin="$(go env GOPATH)/bin"
"$bin/entire" version
case ":$PATH:" in *":$bin:"*) ;; *) echo "note: add $bin to your PATH";; esac
