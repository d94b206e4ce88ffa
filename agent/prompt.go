package agent

// PromptCLI is implemented by agents whose command-line program answers one
// prompt non-interactively; `entire explain` runs it to summarize a
// checkpoint.
type PromptCLI interface {
	// PromptCommand returns the program (looked up on PATH) and its
	// arguments. The program reads the prompt on stdin, uses no tools and
	// prints its answer as JSON on stdout.
	PromptCommand() (program string, args []string)
	// PromptAnswer returns the model's text from what the program
	// printed; ok is false when the output is not the agent's JSON
	// answer.
	PromptAnswer(output []byte) (text string, ok bool)
}
