// Package agenttest is the conformance suite every agent implementation runs
// (like restic's backend test suite): hook installation round trips on
// settings files with foreign content, hook-input parsing for every verb,
// session read/write/truncate, chunking round trips and incremental
// transcript scans, and one check per optional capability (hook table,
// protected directories, session store, transcript format, recognition
// and entry times, enable spec, session ID variable). An agent's test
// calls Run with a Fixture describing its formats.
package agenttest
