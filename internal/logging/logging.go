package logging

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/entirecli/entire/internal/settings"
)

// Location of the log file, relative to the repository root.
const (
	LogDir  = ".entire/logs"
	LogFile = "entire.log"
	// DefaultMaxSize is the size above which the log is rotated to
	// entire.log.1 when opened.
	DefaultMaxSize = 10 << 20
	bufferSize     = 8 << 10
)

// Options configures Open.
type Options struct {
	// RepoRoot is the work tree root; the log is <RepoRoot>/.entire/logs/entire.log.
	// Empty means: log to Fallback.
	RepoRoot string
	// Settings supplies log_level; nil means defaults.
	Settings *settings.Settings
	// Getenv looks up ENTIRE_LOG_LEVEL (os.Getenv in production); nil means
	// an empty environment.
	Getenv func(string) string
	// Fallback receives the records when the file cannot be opened, and the
	// one-line warnings about that or about an invalid level (normally
	// os.Stderr). Nil means io.Discard.
	Fallback io.Writer
	// MaxSize is the rotation threshold in bytes; zero means DefaultMaxSize.
	MaxSize int64
}

// Logger is a *slog.Logger writing JSON lines to the log file through an
// 8 KiB buffer. Records are complete on disk only after Close (or when the
// buffer fills). Safe for concurrent use; use after Close discards records.
type Logger struct {
	*slog.Logger
	out  *bufferedFile
	path string
}

// Open returns the logger of opts.RepoRoot. It never fails: if the log
// directory or file cannot be created or opened, records go to
// opts.Fallback (after a one-line warning there) and Path returns "". The
// level is ENTIRE_LOG_LEVEL, else settings log_level, else INFO; an invalid
// value gives a warning on Fallback and INFO.
//
// The directory is created 0750 and the file 0600, opened for appending. If
// the file is larger than MaxSize it is first renamed to entire.log.1
// (replacing an older one), so at most two files exist.
func Open(opts Options) *Logger {
	fallback := opts.Fallback
	if fallback == nil {
		fallback = io.Discard
	}
	text := settings.NewEffective(opts.Settings, opts.Getenv).LogLevel()
	level, err := ParseLevel(text)
	if err != nil {
		fmt.Fprintf(fallback, "[entire] warning: %v; using INFO\n", err)
		level = slog.LevelInfo
	}
	l := &Logger{}
	var w io.Writer = fallback
	if opts.RepoRoot != "" {
		path := filepath.Join(opts.RepoRoot, LogDir, LogFile)
		f, ferr := openLogFile(path, opts.MaxSize)
		if ferr != nil {
			fmt.Fprintf(fallback, "[entire] warning: cannot open log file, logging to stderr: %v\n", ferr)
		} else {
			l.out = &bufferedFile{f: f, w: bufio.NewWriterSize(f, bufferSize)}
			l.path = path
			w = l.out
		}
	}
	l.Logger = slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
	return l
}

// Discard returns a Logger that drops everything, for tests and callers
// without a repository.
func Discard() *Logger {
	return &Logger{Logger: slog.New(slog.DiscardHandler)}
}

// Path returns the log file path, or "" when logging to the fallback.
func (l *Logger) Path() string { return l.path }

// Close flushes the buffer and closes the file. It is idempotent; a Logger
// logging to the fallback has nothing to close.
func (l *Logger) Close() error {
	if l == nil || l.out == nil {
		return nil
	}
	return l.out.Close()
}

func openLogFile(path string, maxSize int64) (*os.File, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, err
	}
	if info, err := os.Stat(path); err == nil && info.Size() > maxSize {
		// A failed rotation only means the file keeps growing.
		_ = os.Rename(path, path+".1")
	}
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
}

// ParseLevel maps "debug", "info", "warn", "warning" and "error" (any case,
// surrounding space ignored; empty means info) to a slog.Level.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, nil
	case "", "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return slog.LevelInfo, fmt.Errorf("invalid log level %q (want debug, info, warn or error)", s)
}

// bufferedFile serialises writes, flushes and Close, so a Close racing a
// log call is safe. Writes after Close are dropped.
type bufferedFile struct {
	mu     sync.Mutex
	f      *os.File
	w      *bufio.Writer
	closed bool
}

func (b *bufferedFile) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return len(p), nil
	}
	return b.w.Write(p)
}

func (b *bufferedFile) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	ferr := b.w.Flush()
	cerr := b.f.Close()
	if ferr != nil {
		return fmt.Errorf("flush log: %w", ferr)
	}
	if cerr != nil {
		return fmt.Errorf("close log: %w", cerr)
	}
	return nil
}
