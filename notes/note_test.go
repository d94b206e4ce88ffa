package notes

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestValidateKey(t *testing.T) {
	t.Parallel()
	good := []string{"a", "k8s-cluster", "kubeconfig_path", "0", strings.Repeat("a", 64), "a-", "a_"}
	bad := []string{"", "K8S-Cluster", "with space", "with/slash", "with.dot", strings.Repeat("a", 65), "-leading-dash", "_x", ".", "..", "a\\b", "é"}
	for _, k := range good {
		if err := ValidateKey(k); err != nil {
			t.Errorf("ValidateKey(%q) = %v", k, err)
		}
	}
	for _, k := range bad {
		err := ValidateKey(k)
		if !errors.Is(err, ErrInvalidKey) {
			t.Errorf("ValidateKey(%q) = %v, want ErrInvalidKey", k, err)
		}
	}
	if got := ValidateKey("Bad").Error(); got != `invalid note key: "Bad" (expected [a-z0-9][a-z0-9_-]{0,63})` {
		t.Fatalf("message %q", got)
	}
}

func FuzzValidateKey(f *testing.F) {
	for _, s := range []string{"a", "k8s-cluster", "", "-x", "a/b", "..", strings.Repeat("z", 64), "A"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		err := ValidateKey(key)
		ok := len(key) >= 1 && len(key) <= 64
		for i := 0; ok && i < len(key); i++ {
			c := key[i]
			lowerDigit := (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
			ok = lowerDigit || (i > 0 && (c == '_' || c == '-'))
		}
		if ok != (err == nil) {
			t.Fatalf("ValidateKey(%q) = %v, want ok=%v", key, err, ok)
		}
		if err == nil && (strings.ContainsAny(key, "/\\.\x00") || key == "") {
			t.Fatalf("path-like key %q accepted", key)
		}
	})
}

func TestPreview(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 100)
	tests := []struct{ in, want string }{
		{"", ""},
		{"  \n\t\n", ""},
		{"\n\n  first   line\t\there  \nsecond", "first line here"},
		{strings.Repeat("x", 80), strings.Repeat("x", 80)},
		{long, strings.Repeat("é", 79) + "…"},
		{"a\u00a0 b", "a\u00a0 b"}, // only spaces and tabs collapse
	}
	for _, tt := range tests {
		if got := Preview(tt.in); got != tt.want {
			t.Errorf("Preview(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRenderPromptSection(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 7, 12, 0, 0, 0, time.UTC)
	if RenderPromptSectionAt(nil, now) != "" {
		t.Fatal("empty input must render empty")
	}
	notes := []Note{
		{Key: "k8s-cluster", Preview: "homelab | 3 nodes", UpdatedAt: now.Add(-5 * time.Minute)},
		{Key: "kubeconfig-path", Preview: "/kubeconfig.yaml", UpdatedAt: now.Add(-50 * time.Hour)},
		{Key: "zero", Preview: "", UpdatedAt: time.Time{}},
		{Key: "future", Preview: "x", UpdatedAt: now.Add(time.Hour)},
		{Key: "hours", Preview: "y", UpdatedAt: now.Add(-3*time.Hour - time.Minute)},
	}
	want := "## Notes\n\n| Key | Updated | Preview |\n|-----|---------|---------|\n" +
		"| `k8s-cluster` | 5m ago | homelab \\| 3 nodes |\n" +
		"| `kubeconfig-path` | 2d ago | /kubeconfig.yaml |\n" +
		"| `zero` | \u2014 |  |\n" +
		"| `future` | just now | x |\n" +
		"| `hours` | 3h ago | y |\n" +
		"\nNotes persist across sessions. Use `note_show <key>` for full content; `note_save` / `note_delete` to mutate.\n"
	if got := RenderPromptSectionAt(notes, now); got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
}

func TestRenderInContextBlock(t *testing.T) {
	t.Parallel()
	if RenderInContextBlock(nil) != "" {
		t.Fatal("empty input must render empty")
	}
	got := RenderInContextBlock([]Note{{Key: "a", Content: "  body a \n"}, {Key: "b", Content: "b"}})
	want := "## Pinned notes\n\nThese notes are integrated into your system prompt because they were flagged in-context. " +
		"Use `note_unpin <key>` to remove from this block (the underlying note stays saved).\n" +
		"\n### a\n\nbody a\n\n### b\n\nb\n"
	if got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
}

// The key check accepts what the documented pattern accepts.
func FuzzValidKey(f *testing.F) {
	rule := regexp.MustCompile(`^` + keyPattern + `$`)
	for _, s := range []string{"", "a", "_a", "a_-b", "A", "é", "a b", strings.Repeat("a", 64), strings.Repeat("a", 65)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		if got, want := validKey(key), rule.MatchString(key); got != want {
			t.Errorf("validKey(%q) = %v, the pattern says %v", key, got, want)
		}
	})
}
