//go:build !torture

package testtier

// Torture reports whether the tests run in the torture tier.
const Torture = false
