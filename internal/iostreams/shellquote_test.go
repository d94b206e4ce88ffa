package iostreams

import "testing"

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"origin":                            "origin",
		"entire/checkpoints/v1":             "entire/checkpoints/v1",
		"+refs/heads/a:refs/heads/a":        "+refs/heads/a:refs/heads/a",
		":refs/heads/$(rm${IFS}-rf${IFS}~)": `':refs/heads/$(rm${IFS}-rf${IFS}~)'`,
		"it's":                              `'it'\''s'`,
		"":                                  `''`,
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
