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

// CardState says where a RefCard's title comes from.
type CardState int

// The states of a RefCard.
const (
	// CardLive: the title is the live entity's.
	CardLive CardState = iota
	// CardPreview: the lookup cannot resolve the type (or there is none), so
	// the reference's own preview title stands in; it may be stale.
	CardPreview
	// CardGone: the entity no longer exists.
	CardGone
	// CardUnavailable: the lookup failed; Err says why.
	CardUnavailable
)

// RefCard is a reference resolved for display: the reference, the title
// to show (first line only) and where that title came from.
type RefCard struct {
	Ref   renderrefs.Reference
	Title string
	State CardState
	// Err is the lookup's error when State is CardUnavailable.
	Err string
}

// ResolveCard looks ref up with lookup (nil: no lookup) and returns its
// card: the live title; the preview title when the lookup cannot resolve
// the type; CardGone when the entity is gone; CardUnavailable with the
// error for other lookup failures.
func ResolveCard(ref renderrefs.Reference, lookup Lookup) RefCard {
	c := RefCard{Ref: ref, State: CardPreview}
	if ref.Preview != nil {
		c.Title = firstLine(ref.Preview.Title)
	}
	if lookup == nil {
		return c
	}
	title, err := lookup(ref)
	switch {
	case errors.Is(err, ErrGone):
		return RefCard{Ref: ref, State: CardGone}
	case errors.Is(err, ErrUnknownType):
		return c
	case err != nil:
		return RefCard{Ref: ref, State: CardUnavailable, Err: err.Error()}
	}
	return RefCard{Ref: ref, Title: firstLine(title), State: CardLive}
}

// String renders the card as one line, "[<type> <id>] <title>": a preview
// title is marked "(preview)"; a gone entity gives "[<type> <id>] (gone:
// the <type> no longer exists)"; a failed lookup "(unavailable: <error>)".
func (c RefCard) String() string {
	head := "[" + c.Ref.Type + " " + c.Ref.ID + "]"
	switch {
	case c.State == CardGone:
		return head + " (gone: the " + c.Ref.Type + " no longer exists)"
	case c.State == CardUnavailable:
		return head + " (unavailable: " + c.Err + ")"
	case c.Title == "":
		return head
	case c.State == CardPreview:
		return head + " " + c.Title + " (preview)"
	}
	return head + " " + c.Title
}

// Card renders a reference as one line: ResolveCard(ref, lookup).String().
func Card(ref renderrefs.Reference, lookup Lookup) string {
	return ResolveCard(ref, lookup).String()
}

// SessionCards returns the render references of session s's slot as
// cards, looked up with lookup (nil means NewLookup(repo)). Errors come
// from reading the slot (a corrupt record).
func SessionCards(ctx context.Context, repo *gitrepo.Repo, s *checkpoint.Session, lookup Lookup) ([]RefCard, error) {
	refs, err := references.ReadSlot(s)
	if err != nil || len(refs) == 0 {
		return nil, err
	}
	if lookup == nil {
		lookup = NewLookup(ctx, repo)
	}
	cards := make([]RefCard, len(refs))
	for i, r := range refs {
		cards[i] = ResolveCard(r, lookup)
	}
	return cards, nil
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
