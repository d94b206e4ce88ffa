package fswatch

import (
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// Client-side bounds: a watcher that does not accept within dialTimeout
// is taken as absent; a query gets syncTimeout plus a margin.
const (
	dialTimeout  = 200 * time.Millisecond
	queryTimeout = syncTimeout + 500*time.Millisecond
	maxAnswer    = 256 << 20
)

// Query asks the watcher of stateDir for the changes since token and
// returns the answer of git's fsmonitor hook protocol version 2. It never
// fails: when the watcher cannot be reached or does not answer in time,
// the answer is "/" (git checks everything), with a token no watcher
// answers exactly.
func Query(stateDir, token string) []byte {
	if strings.ContainsAny(token, "\n\x00") {
		return Answer(noToken, nil, true)
	}
	c, err := dial(stateDir)
	if err != nil {
		return Answer(noToken, nil, true)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(queryTimeout))
	if _, err := io.WriteString(c, "query "+token+"\n"); err != nil {
		return Answer(noToken, nil, true)
	}
	out, err := io.ReadAll(io.LimitReader(c, maxAnswer))
	if err != nil || !complete(out) {
		return Answer(noToken, nil, true)
	}
	return out
}

// complete reports whether an answer is whole: a non-empty token, every
// record NUL-terminated.
func complete(a []byte) bool {
	return len(a) > 1 && a[0] != 0 && a[len(a)-1] == 0
}

// Running reports whether a watcher serves stateDir.
func Running(stateDir string) bool {
	c, err := dial(stateDir)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// Stop asks the watcher of stateDir to exit; it is not an error when none
// runs.
func Stop(stateDir string) error {
	c, err := dial(stateDir)
	if err != nil {
		return nil
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := io.WriteString(c, "stop\n"); err != nil {
		return fmt.Errorf("stop the watcher: %w", err)
	}
	_, _ = io.ReadAll(c)
	return nil
}

// dial connects to the watcher of stateDir.
func dial(stateDir string) (net.Conn, error) {
	sock, err := SocketPath(stateDir)
	if err != nil {
		return nil, err
	}
	return net.DialTimeout("unix", sock, dialTimeout)
}

// Changes asks the watcher of stateDir for the paths changed since token,
// as Query does, and returns the answer decoded: the new token, and the
// changed paths (relative to the work tree, slash-separated; a trailing
// slash for a whole directory), or all=true when the watcher cannot tell
// (then paths is nil). token "" asks for the current token alone: the
// answer is all=true with a token later queries can start from.
func Changes(stateDir, token string) (newToken string, paths []string, all bool) {
	if token == "" {
		token = noToken
	}
	return decodeAnswer(Query(stateDir, token))
}

// decodeAnswer splits an answer of the hook protocol (complete, see
// complete) into its token and paths; "/" is all.
func decodeAnswer(a []byte) (token string, paths []string, all bool) {
	if !complete(a) {
		return noToken, nil, true
	}
	fields := strings.Split(string(a[:len(a)-1]), "\x00")
	token, fields = fields[0], fields[1:]
	for _, f := range fields {
		if f == "/" {
			return token, nil, true
		}
	}
	return token, fields, false
}
