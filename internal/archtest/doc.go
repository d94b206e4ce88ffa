// Package archtest holds no code: its tests check the rules of the
// project's architecture.md that a program can check (the imports allowed
// between the parts, the seam around the concrete agents, the libraries
// that must not touch the terminal or the runtime, the one git runner, the
// number of top-level folders).
package archtest
