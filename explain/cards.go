package explain

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/hide"
	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/notes"
	"github.com/entirecli/entire/renderrefs"
	"github.com/entirecli/entire/strategy/references"
)

// ErrGone is returned (wrapped) by a Lookup when the referenced entity no
// longer exists.
var ErrGone = errors.New("explain: entity no longer exists")

// ErrUnknownType is returned (wrapped) by a Lookup that cannot fetch
// entities of the reference's type.
var ErrUnknownType = errors.New("explain: unknown entity type")

// Lookup fetches the live entity a reference names and returns its current
// title. It returns an error wrapping ErrGone when the entity is gone and
// ErrUnknownType when it cannot resolve the type.
type Lookup func(ref renderrefs.Reference) (title string, err error)

// NewLookup returns a Lookup over repo for checkpoints (title: the first
// prompt of the first session), notes (the note's preview, in the
// namespace of ref.AgentID, else notes.DefaultAgent) and hides (source and
// size). Other types give ErrUnknownType. It reads git only.
func NewLookup(ctx context.Context, repo *gitrepo.Repo) Lookup {
	return func(ref renderrefs.Reference) (string, error) {
		switch ref.Type {
		case references.TypeCheckpoint:
			id, err := checkpoint.ParseID(ref.ID)
			if err != nil {
				return "", fmt.Errorf("%w: %v", ErrGone, err)
			}
			cp, err := checkpoint.NewStore(repo, nil).Read(id)
			if errors.Is(err, checkpoint.ErrNotFound) {
				return "", fmt.Errorf("%w: checkpoint %s", ErrGone, ref.ID)
			}
			if err != nil {
				return "", err
			}
			for _, s := range cp.Sessions {
				if p := s.Prompts(); len(p) > 0 && strings.TrimSpace(p[0]) != "" {
					return firstLine(p[0]), nil
				}
			}
			return fmt.Sprintf("%d session(s)", len(cp.Sessions)), nil
		case references.TypeNote:
			store, err := notes.NewStore(ctx, repo, notes.WithAgent(ref.AgentID))
			if err != nil {
				return "", err
			}
			n, err := store.Get(ctx, ref.ID)
			if errors.Is(err, notes.ErrNotFound) || errors.Is(err, notes.ErrInvalidKey) {
				return "", fmt.Errorf("%w: note %s", ErrGone, ref.ID)
			}
			if err != nil {
				return "", err
			}
			return n.Preview, nil
		case references.TypeHide:
			e, _, err := hide.NewStore(repo).Get(ref.ID)
			if errors.Is(err, hide.ErrNotFound) {
				return "", fmt.Errorf("%w: hide %s", ErrGone, ref.ID)
			}
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s (%d bytes)", e.Source, e.SizeBytes), nil
		}
		return "", fmt.Errorf("%w: %s", ErrUnknownType, ref.Type)
	}
}

// Card renders a reference as one line, "[<type> <id>] <title>": the title
// comes from lookup (the live entity); when lookup cannot resolve the type
// (or is nil) the preview title stands in, marked "(preview)"; a gone
// entity gives "[<type> <id>] (gone: the <type> no longer exists)"; other
// lookup errors give "(unavailable: <error>)".
func Card(ref renderrefs.Reference, lookup Lookup) string {
	head := "[" + ref.Type + " " + ref.ID + "]"
	preview := func() string {
		if ref.Preview != nil && strings.TrimSpace(ref.Preview.Title) != "" {
			return head + " " + firstLine(ref.Preview.Title) + " (preview)"
		}
		return head
	}
	if lookup == nil {
		return preview()
	}
	title, err := lookup(ref)
	switch {
	case errors.Is(err, ErrGone):
		return head + " (gone: the " + ref.Type + " no longer exists)"
	case errors.Is(err, ErrUnknownType):
		return preview()
	case err != nil:
		return head + " (unavailable: " + err.Error() + ")"
	case strings.TrimSpace(title) == "":
		return head
	}
	return head + " " + firstLine(title)
}

// firstLine is the first non-blank line of s, trimmed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
