package agent

import (
	"slices"

	"github.com/entirecli/entire/internal/jsonedit"
)

// InstallLog is what `entire enable` added to a work tree, kept in the git
// directory so that `entire disable --uninstall` takes out exactly that:
// the files and directories it created, and per edited JSON file the
// members and elements it inserted. Paths are relative to the work tree
// root, with forward slashes. A nil log records nothing; uninstalling with
// a nil log (an install older than the log) falls back to removing what
// Entire recognises as its own.
type InstallLog struct {
	// Created are the files and directories enable created.
	Created []string `json:"created,omitempty"`
	// Files maps an edited JSON file to what was inserted into it.
	Files map[string]*jsonedit.Record `json:"files,omitempty"`
	// Appended maps a text file to the text enable appended to its end.
	Appended map[string]string `json:"appended,omitempty"`
}

// AddAppended notes that enable appended text to the end of file rel.
func (l *InstallLog) AddAppended(rel, text string) {
	if l == nil || text == "" {
		return
	}
	if l.Appended == nil {
		l.Appended = map[string]string{}
	}
	l.Appended[rel] += text
}

// Record returns the record of file rel, creating it (nil for a nil log).
func (l *InstallLog) Record(rel string) *jsonedit.Record {
	if l == nil {
		return nil
	}
	if l.Files == nil {
		l.Files = map[string]*jsonedit.Record{}
	}
	r := l.Files[rel]
	if r == nil {
		r = &jsonedit.Record{}
		l.Files[rel] = r
	}
	return r
}

// Lookup returns the record of file rel: nil when the log is nil, an empty
// record when enable inserted nothing into it.
func (l *InstallLog) Lookup(rel string) *jsonedit.Record {
	if l == nil {
		return nil
	}
	if r := l.Files[rel]; r != nil {
		return r
	}
	return &jsonedit.Record{}
}

// AddCreated notes that enable created rel.
func (l *InstallLog) AddCreated(rel string) {
	if l != nil && !slices.Contains(l.Created, rel) {
		l.Created = append(l.Created, rel)
	}
}

// WasCreated reports whether enable created rel; with a nil log it is true
// (the fallback treats files left empty as Entire's).
func (l *InstallLog) WasCreated(rel string) bool {
	return l == nil || slices.Contains(l.Created, rel)
}
