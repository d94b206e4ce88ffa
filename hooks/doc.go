// Package hooks handles the hook calls of the agents (`entire hooks
// <agent> <verb>`) and of git (`entire hooks git <hook>`): cheap early exits
// first (not a repository, entire disabled), then the input parsed, logged
// and handed to the configured strategy, and the exit status each caller's
// protocol expects. A hook never breaks the agent or blocks a commit
// because of an internal failure.
package hooks
