package conclusion

// briefInstruction is the text BriefInstruction returns. Its template asks
// only for the fields the model knows; the annotations are YAML comments, so
// a model that copies them verbatim still produces a clean block.
const briefInstruction = "\n\n---\n" +
	"Before you finish, report your conclusion to the agent that delegated this task.\n" +
	"End your final message with a single block in exactly this form:\n" +
	"\n" +
	OpenTag + "\n" +
	"status: success        # REQUIRED: one of success | partial | failed | blocked\n" +
	"summary: |             # REQUIRED: 2-4 sentences on what you did and what you found\n" +
	"  What was done, and the outcome.\n" +
	"artifacts:             # optional: files you created or changed\n" +
	"  - path/to/file\n" +
	"memory_refs:           # optional: note keys or other memory ids you used or wrote\n" +
	"  - <id>\n" +
	"follow_up: <what remains, or leave empty>\n" +
	"confidence: 0.9        # REQUIRED: a decimal in [0.0, 1.0]\n" +
	CloseTag + "\n" +
	"\n" +
	"Emit this block exactly once, as the very last thing in your output.\n" +
	"Do not restate the task id, agent, model, project path or timestamps: they are recorded for you.\n"

// BriefInstruction returns the instruction appended to a subagent's prompt
// asking it to close its run with one conclusion block between OpenTag and
// CloseTag. It starts with "\n\n---\n" so it can be appended to any prompt.
// The template lists, in this order, status (required; success | partial |
// failed | blocked), summary (required; a literal block of 2-4 sentences),
// artifacts and memory_refs (optional lists), follow_up, and confidence
// (required; in [0.0, 1.0]). The text is constant.
func BriefInstruction() string { return briefInstruction }
