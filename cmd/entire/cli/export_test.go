package cli

// What the tests of package cli_test (which also use the end-to-end
// harness, and so cannot be in package cli) need of its internals.
var (
	TestFactory = testFactory
	Run         = run
)

// ExitOK is the exit status of a command that succeeded.
const ExitOK = exitOK

// Factory is the commands' dependencies.
type Factory = factory

// CheckEnabled is the disabled guard of rewind, resume and explain.
var CheckEnabled = checkEnabled

// DisabledMessage is what those commands print while Entire is disabled.
const DisabledMessage = disabledMessage
