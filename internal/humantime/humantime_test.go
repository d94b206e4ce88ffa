package humantime

import (
	"testing"
	"time"
)

func TestAgo(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for d, want := range map[time.Duration]string{
		0: "just now", 59 * time.Second: "just now", time.Minute: "1m ago", 59 * time.Minute: "59m ago",
		time.Hour: "1h ago", 23*time.Hour + 59*time.Minute: "23h ago", 48 * time.Hour: "2d ago", -time.Hour: "just now",
	} {
		if got := Ago(now.Add(-d), now); got != want {
			t.Errorf("Ago(now-%v) = %q, want %q", d, got, want)
		}
	}
	if got := Ago(time.Time{}, now); got != "\u2014" {
		t.Errorf("Ago(zero) = %q", got)
	}
}
