// Package testtier tells a test which tier it runs in. `go test ./...`
// runs every test with the quick share of its inputs; the torture tier
// (`go test -tags torture ./...`, which CI runs) gives the tests that
// scale with their inputs the whole of them: every random case, every
// size. A test states both counts where it starts, so each tier's share is
// visible in the test itself.
package testtier

// Count returns quick in `go test ./...` and full in the torture tier.
func Count(quick, full int) int {
	if Torture {
		return full
	}
	return quick
}
