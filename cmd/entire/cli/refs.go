package cli

import (
	"github.com/entirecli/entire/renderrefs"
)

// emitRef announces an entity the command created or points at as a
// render reference on the command's stderr, when the environment enables
// references (renderrefs.Enabled: ENTIRE_RENDERABLE_REFS=1, which `entire
// enable` sets for Claude Code's own commands). A person at a terminal
// never sees the line. Emission is best effort: errors are dropped.
//
// Commands call it after the entity exists, with a preview title:
//
//	emitRef(f, renderrefs.Reference{Type: refstore.TypeNote, ID: key,
//		Intent: renderrefs.IntentCreated, Preview: &renderrefs.Preview{Title: preview}})
func emitRef(f *factory, ref renderrefs.Reference) {
	if f == nil || f.IO == nil || !renderrefs.Enabled(f.Getenv) {
		return
	}
	_ = renderrefs.Write(f.IO.ErrOut, ref)
}
