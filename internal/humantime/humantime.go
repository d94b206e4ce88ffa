// Package humantime writes times as people read them in a list: "just
// now", "5m ago", "3h ago", "2d ago".
package humantime

import (
	"fmt"
	"time"
)

// Ago renders t relative to now: "—" for the zero time, "just now" under a
// minute (or in the future), then "<m>m ago", "<h>h ago" and "<d>d ago".
func Ago(t, now time.Time) string {
	if t.IsZero() {
		return "\u2014"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	default:
		return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
	}
}
