package checkpoint

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
)

// A transcript line longer than agent.MaxChunkSize (SPEC 4.5 stores no
// such line) is stored with its largest JSON string values moved out into
// git objects of their own, each replaced in the line by a marker, until
// the line fits. The marker is a JSON string, so the line stays valid JSON:
//
//	"entire-blob:v1:<sha1>:<len>"
//
// It stands for the exact len bytes of JSON it replaced, quotes included
// (a string value, or the whole line when no set of string values is
// large enough). <sha1> (40 lowercase hex digits) names the entry of the
// BlobDir tree beside the transcript's chunks that holds those bytes: a
// blob, or for more than agent.MaxChunkSize bytes a tree of blobs named
// 000, 001, ... to be concatenated; the name is the entry's object hash.
// Readers replace a marker only when its opening quote is not escaped and
// its name is an entry of that tree, so the text of a marker quoted inside
// a string, or a marker-shaped string in a transcript without such an
// entry, is left alone. They put back what the entry holds, whatever its
// size: `entire doctor --secrets --purge` may have rewritten it.
const (
	// BlobDir is the directory beside a transcript's chunks (full.jsonl,
	// full.jsonl.001, ...) that holds the values moved out of its long
	// lines. Entire 0.4.x readers ignore it (it is no chunk name).
	BlobDir = TranscriptFile + ".blobs"
	// BlobMarkerPrefix begins the text of every marker.
	BlobMarkerPrefix = "entire-blob:v1:"
)

// minExternal is the smallest string value worth moving out of a line.
const minExternal = 4 << 10

var markerStart = []byte(`"` + BlobMarkerPrefix)

// blobMarker returns the marker for n bytes stored as entry name.
func blobMarker(name string, n int) []byte {
	b := make([]byte, 0, len(markerStart)+len(name)+22)
	b = append(b, markerStart...)
	b = append(b, name...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '"')
}

// markerLen is len(blobMarker(name, n)) for a 40-digit name.
func markerLen(n int) int {
	return len(markerStart) + 40 + 1 + len(strconv.Itoa(n)) + 1
}

// parseMarker reads a marker at the start of b and returns the entry it
// names and its length in b; ok is false when b does not start with one.
func parseMarker(b []byte) (name string, size int, ok bool) {
	if !bytes.HasPrefix(b, markerStart) {
		return "", 0, false
	}
	i := len(markerStart)
	if len(b) < i+42 {
		return "", 0, false
	}
	for _, c := range b[i : i+40] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", 0, false
		}
	}
	if b[i+40] != ':' {
		return "", 0, false
	}
	j := i + 41
	for j < len(b) && j < i+41+20 && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	if j == i+41 || j >= len(b) || b[j] != '"' {
		return "", 0, false
	}
	return string(b[i : i+40]), j + 1, true
}

// escaped reports whether b[i] is preceded by an odd number of
// backslashes.
func escaped(b []byte, i int) bool {
	n := 0
	for k := i - 1; k >= 0 && b[k] == '\\'; k-- {
		n++
	}
	return n%2 == 1
}

// stringValues returns the spans [start, end), quotes included, of the
// JSON string values of line that are at least minLen bytes long, in
// order. Object keys are left out. The line is read as JSON without being
// validated: a quote that is escaped outside a string (invalid JSON) never
// starts a value.
func stringValues(line []byte, minLen int) [][2]int {
	var out [][2]int
	i := 0
	for {
		j := bytes.IndexByte(line[i:], '"')
		if j < 0 {
			return out
		}
		start := i + j
		end := stringEnd(line, start+1)
		if end < 0 {
			return out
		}
		i = end
		if escaped(line, start) {
			continue
		}
		k := end
		for k < len(line) && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r' || line[k] == '\n') {
			k++
		}
		if k < len(line) && line[k] == ':' {
			continue // a key
		}
		if end-start >= minLen {
			out = append(out, [2]int{start, end})
		}
	}
}

// stringEnd returns the index just past the quote that closes the string
// whose content starts at b[i], or -1 when it is not closed.
func stringEnd(b []byte, i int) int {
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1
		}
		q := i + j
		if !escaped(b, q) {
			return q + 1
		}
		i = q + 1
	}
}

// externalizeLine returns line with its largest string values (of at
// least minLen bytes) replaced by markers, until it is at most limit bytes;
// store keeps each value moved out and returns the name of its entry. When
// the string values cannot bring the line under limit, the whole line is
// moved out (it becomes one marker). A line of at most limit bytes is
// returned as it is.
func externalizeLine(line []byte, limit, minLen int, store func([]byte) (string, error)) ([]byte, error) {
	if len(line) <= limit {
		return line, nil
	}
	spans := stringValues(line, minLen)
	slices.SortStableFunc(spans, func(a, b [2]int) int { return (b[1] - b[0]) - (a[1] - a[0]) })
	size, n := len(line), 0
	for n < len(spans) && size > limit {
		size -= spans[n][1] - spans[n][0] - markerLen(spans[n][1]-spans[n][0])
		n++
	}
	if size > limit {
		name, err := store(line)
		if err != nil {
			return nil, err
		}
		return blobMarker(name, len(line)), nil
	}
	picked := spans[:n]
	slices.SortFunc(picked, func(a, b [2]int) int { return a[0] - b[0] })
	out := make([]byte, 0, size)
	at := 0
	for _, sp := range picked {
		name, err := store(line[sp[0]:sp[1]])
		if err != nil {
			return nil, err
		}
		out = append(out, line[at:sp[0]]...)
		out = append(out, blobMarker(name, sp[1]-sp[0])...)
		at = sp[1]
	}
	return append(out, line[at:]...), nil
}

// externalizeLargest moves the largest string values of doc (at least
// minLen bytes, and at least half the largest) out into store, for a
// document (a Gemini CLI session) whose message is too long for a chunk;
// moved is false when doc has no such value left.
func externalizeLargest(doc []byte, minLen int, store func([]byte) (string, error)) (out []byte, moved bool, err error) {
	spans := stringValues(doc, minLen)
	largest := 0
	for _, sp := range spans {
		largest = max(largest, sp[1]-sp[0])
	}
	if largest == 0 {
		return doc, false, nil
	}
	at := 0
	for _, sp := range spans {
		if sp[1]-sp[0] < largest/2 {
			continue
		}
		name, err := store(doc[sp[0]:sp[1]])
		if err != nil {
			return nil, false, err
		}
		out = append(out, doc[at:sp[0]]...)
		out = append(out, blobMarker(name, sp[1]-sp[0])...)
		at = sp[1]
	}
	return append(out, doc[at:]...), true, nil
}

// valueSource gives the values a transcript's markers stand for.
type valueSource interface {
	// valueSize returns the size of the value stored as entry name, and
	// false when the transcript has no such entry.
	valueSize(name string) (int, bool)
	// appendValue appends the value stored as entry name to dst.
	appendValue(dst []byte, name string) ([]byte, error)
}

// MaxReadTranscript bounds the size of a transcript ReadTranscript puts
// together (its chunks joined, its values put back). A stored transcript
// may come from a teammate's checkpoint: a few small objects (one value
// named by many markers, a value tree whose parts are all one blob, one
// chunk named many times) could otherwise stand for more than the memory
// of the machine.
const MaxReadTranscript = 1 << 30

// errTooLarge is the error for a transcript over MaxReadTranscript.
func errTooLarge(n int) error {
	return fmt.Errorf("transcript is larger than %d MiB (at least %d MiB)", MaxReadTranscript>>20, n>>20)
}

// expandMarkers returns data with every marker whose opening quote is not
// escaped and whose entry src has replaced by the value it stands for.
// Data without such a marker is returned as it is. Values are not read
// for markers: a marker inside a value stays as it is. A result over
// MaxReadTranscript is an error, found before any value is read.
func expandMarkers(data []byte, src valueSource) ([]byte, error) {
	type hit struct {
		at, end int
		name    string
	}
	var hits []hit
	grow := 0
	for i := 0; ; {
		j := bytes.Index(data[i:], markerStart)
		if j < 0 {
			break
		}
		at := i + j
		name, n, ok := parseMarker(data[at:])
		if !ok || escaped(data, at) {
			i = at + 1
			continue
		}
		size, ok := src.valueSize(name)
		if !ok {
			// Not a value of this transcript: text, which may end
			// where a real marker starts.
			i = at + 1
			continue
		}
		hits = append(hits, hit{at, at + n, name})
		grow += size - n
		if len(data)+grow > MaxReadTranscript {
			return nil, errTooLarge(len(data) + grow)
		}
		i = at + n
	}
	if len(hits) == 0 {
		return data, nil
	}
	out := make([]byte, 0, max(len(data)+grow, 0))
	at := 0
	for _, h := range hits {
		out = append(out, data[at:h.at]...)
		var err error
		if out, err = src.appendValue(out, h.name); err != nil {
			return nil, err
		}
		at = h.end
	}
	return append(out, data[at:]...), nil
}
