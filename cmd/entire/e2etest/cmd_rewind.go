package e2etest

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"

	"github.com/entirecli/entire/internal/gitrepo/gittest"
)

type ListedPoint struct {
	ID          string `json:"id"`
	Message     string `json:"message"`
	MetadataDir string `json:"metadata_dir"`
	IsLogsOnly  bool   `json:"is_logs_only"`
	Condensed   string `json:"condensation_id"`
	SessionID   string `json:"session_id"`
}

func (r *SessionRepo) Points() []ListedPoint {
	r.T.Helper()
	out, errOut, code := r.Entire("rewind", "--list")
	if code != 0 {
		r.T.Fatalf("rewind --list: %d %s", code, errOut)
	}
	var pts []ListedPoint
	if err := json.Unmarshal([]byte(out), &pts); err != nil {
		r.T.Fatalf("rewind --list output %q: %v", out, err)
	}
	return pts
}

// PointOf returns the ID of the newest rewind point whose message starts
// with prefix, failing the test when there is none.
func (r *SessionRepo) PointOf(prefix string) string {
	r.T.Helper()
	pts := r.Points()
	for _, p := range pts {
		if strings.HasPrefix(p.Message, prefix) {
			return p.ID
		}
	}
	r.T.Fatalf("no rewind point starting %q in %+v", prefix, pts)
	return ""
}

func (r *SessionRepo) Sh(script string) {
	r.T.Helper()
	cmd := exec.Command("/bin/sh", "-ec", script)
	cmd.Dir = r.Dir
	cmd.Env = append(gittest.Env(r.T.TempDir()), r.Env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		r.T.Fatalf("sh %q: %v\n%s", script, err, out)
	}
}

func (l *LineReader) Read(p []byte) (int, error) {
	if len(l.Lines) == 0 {
		return 0, io.EOF
	}
	n := copy(p, l.Lines[0]+"\n")
	l.Lines = l.Lines[1:]
	return n, nil
}
