//go:build linux

package lockfile

import (
	"bytes"
	"os"
	"strconv"
)

// startTime returns the start time of process pid in clock ticks since
// boot (field 22 of /proc/<pid>/stat), "" when it cannot be read.
func startTime(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The command name (field 2) is in parentheses and may hold spaces
	// and parentheses itself: the fields after it start past the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return ""
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 { // f[0] is field 3, so field 22 is f[19]
		return ""
	}
	return string(f[19])
}
