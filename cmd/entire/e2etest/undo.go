package e2etest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"testing"
)

// AllObjectsHolding returns the objects of a repository (reachable or not)
// whose content contains needle.
func AllObjectsHolding(t *testing.T, dir, needle string) []string {
	t.Helper()
	cmd := exec.Command("git", "cat-file", "--batch-all-objects", "--batch")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var hits []string
	rd := bufio.NewReader(bytes.NewReader(out))
	for {
		header, err := rd.ReadString('\n')
		if err != nil {
			break
		}
		var hash, typ string
		var size int
		fmt.Sscanf(header, "%s %s %d", &hash, &typ, &size)
		body := make([]byte, size+1)
		if _, err := io.ReadFull(rd, body); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(body, []byte(needle)) {
			hits = append(hits, typ+" "+hash)
		}
	}
	return hits
}
