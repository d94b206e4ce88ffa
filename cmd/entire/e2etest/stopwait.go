package e2etest

import (
	"errors"
	"testing"
	"time"

	"github.com/entirecli/entire/checkpoint/session"
	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

// AwaitFinishers waits for turn ends being finished in the background.
func AwaitFinishers(t *testing.T, dir string) {
	t.Helper()
	common := gittest.Git(t, dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
	store := session.NewStore(session.Options{GitCommonDir: common})
	err := store.AwaitTurnFinishes(10 * time.Second)
	if errors.Is(err, session.ErrLockTimeout) {
		// A busy machine starves the finisher (it runs at the lowest
		// priority): a command that reads steps writes them itself
		// beside it (strategy.SettleTurnEnds), as a user's would.
		RunEntire(t, dir, nil, "", "explain")
		err = store.AwaitTurnFinishes(0)
	}
	if err != nil {
		t.Fatal(err)
	}
}
