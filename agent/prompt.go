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

// TranscriptRoles is implemented by agents whose transcript entries (JSONL
// lines, or the messages of a JSON document) name their speaker in a "type"
// member.
type TranscriptRoles interface {
	// TranscriptRoles returns the "type" values of the user's entries and
	// of the assistant's; the two lists share no value.
	TranscriptRoles() (user, assistant []string)
}

// EntryRoles returns the union of the TranscriptRoles of every registered
// agent: the "type" values of user entries and of assistant entries, as
// sets. A reader of stored transcripts that does not know which agent wrote
// one recognises the speakers of all of them.
func EntryRoles() (user, assistant map[string]bool) {
	user, assistant = map[string]bool{}, map[string]bool{}
	for _, n := range List() {
		a, err := Get(n)
		if err != nil {
			continue
		}
		r, ok := a.(TranscriptRoles)
		if !ok {
			continue
		}
		u, as := r.TranscriptRoles()
		for _, t := range u {
			user[t] = true
		}
		for _, t := range as {
			assistant[t] = true
		}
	}
	return user, assistant
}
