package fswatch

import (
	"bytes"
	"slices"
	"strconv"
	"testing"
)

func TestJournalAnswersEverythingUntilReady(t *testing.T) {
	t.Parallel()
	j := newJournal("a")
	j.record("x")
	tok, _, all := j.since(j.token())
	if !all {
		t.Fatal("a journal that is not ready answered exactly")
	}
	j.setReady()
	if _, _, all := j.since(tok); !all {
		t.Fatal("a token from before the journal was ready was answered exactly")
	}
	tok = j.token()
	j.record("a/b")
	j.record("c/")
	j.record("a/b")
	tok2, paths, all := j.since(tok)
	if all || !slices.Equal(paths, []string{"a/b", "c/"}) {
		t.Fatalf("since = %q, all=%v; want [a/b c/]", paths, all)
	}
	if _, paths, all := j.since(tok2); all || len(paths) != 0 {
		t.Fatalf("nothing changed since the new token, got %q all=%v", paths, all)
	}
}

func TestJournalRefusesForeignAndBadTokens(t *testing.T) {
	t.Parallel()
	j := newJournal("a")
	j.setReady()
	other := newJournal("b")
	other.setReady()
	for _, tok := range []string{other.token(), "1700000000", "", tokenPrefix + "a", tokenPrefix + "a:x", tokenPrefix + "a:999999"} {
		if _, _, all := j.since(tok); !all {
			t.Errorf("token %q was answered exactly", tok)
		}
	}
}

func TestJournalOverflowAndDegrade(t *testing.T) {
	t.Parallel()
	j := newJournal("a")
	j.setReady()
	tok := j.token()
	j.record("x")
	j.invalidate() // the event queue overflowed
	if _, _, all := j.since(tok); !all {
		t.Fatal("a token from before an overflow was answered exactly")
	}
	tok = j.token()
	j.record("y")
	if _, paths, all := j.since(tok); all || !slices.Equal(paths, []string{"y"}) {
		t.Fatalf("after the overflow: %q all=%v", paths, all)
	}
	j.degrade() // a watch could not be added
	if _, _, all := j.since(j.token()); !all {
		t.Fatal("a degraded journal answered exactly")
	}
	// The first walk ending after a new directory failed: still degraded.
	j.setReady()
	if _, _, all := j.since(j.token()); !all {
		t.Fatal("a degraded journal was made ready again")
	}
}

func TestJournalForgetsWhenFull(t *testing.T) {
	t.Parallel()
	j := newJournal("a")
	j.setReady()
	tok := j.token()
	for i := 0; i <= maxJournal; i++ {
		j.record("p/" + strconv.Itoa(i))
	}
	if len(j.last) > maxJournal {
		t.Fatalf("journal holds %d paths", len(j.last))
	}
	if _, _, all := j.since(tok); !all {
		t.Fatal("a token from before the journal was emptied was answered exactly")
	}
}

func TestAnswerEncoding(t *testing.T) {
	t.Parallel()
	if got := Answer("t", nil, true); !bytes.Equal(got, []byte("t\x00/\x00")) {
		t.Errorf("all = %q", got)
	}
	if got := Answer("t", []string{"a", "b/"}, false); !bytes.Equal(got, []byte("t\x00a\x00b/\x00")) {
		t.Errorf("paths = %q", got)
	}
	if got := Answer("t", nil, false); !bytes.Equal(got, []byte("t\x00")) {
		t.Errorf("none = %q", got)
	}
	if !complete(Answer("t", nil, false)) || complete([]byte("t")) || complete(nil) {
		t.Error("complete misjudges answers")
	}
}
