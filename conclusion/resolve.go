package conclusion

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ArtifactResolver turns an artifact reference (a path, a URL or any opaque
// token) into a richer display string. It must return ref unchanged when it
// cannot enrich it.
type ArtifactResolver func(ref string) string

// MemoryRefResolver turns a memory reference (a note key or other memory
// id) into a richer display string. It must return ref unchanged when it
// cannot enrich it.
type MemoryRefResolver func(ref string) string

// ResolveOptions holds the optional resolvers FormatForParent applies. A nil
// *ResolveOptions or a nil field means no enrichment for that field, and the
// output is then byte-identical to the unresolved form.
type ResolveOptions struct {
	// Artifacts, when not nil, is called for each artifact entry.
	Artifacts ArtifactResolver
	// Memory, when not nil, is called for each memory_refs entry.
	Memory MemoryRefResolver
}

// NewFilesystemArtifactResolver returns an ArtifactResolver that looks each
// artifact up on the local filesystem and appends its size ("<ref> (12 B)",
// "(3.4 KB)", "(1.2 MB)"; KB and MB are powers of 1024) or "<ref> (missing)"
// when it does not exist. A relative ref is resolved against baseDir.
//
// The ref is returned unchanged when it is blank, when it looks like a URL
// (contains "://" or starts with "git@"), when baseDir is blank (nothing is
// resolved against the process's working directory), or when stat fails for
// any reason other than non-existence. The resolver only stats; it is safe
// for concurrent use.
func NewFilesystemArtifactResolver(baseDir string) ArtifactResolver {
	if strings.TrimSpace(baseDir) == "" {
		return func(ref string) string { return ref }
	}
	return func(ref string) string {
		if strings.TrimSpace(ref) == "" || strings.Contains(ref, "://") || strings.HasPrefix(ref, "git@") {
			return ref
		}
		path := ref
		if !filepath.IsAbs(path) {
			path = filepath.Join(baseDir, path)
		}
		info, err := os.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return ref + " (missing)"
		case err != nil:
			return ref
		}
		return ref + " (" + formatSize(info.Size()) + ")"
	}
}

// formatSize renders n bytes as "N B", "%.1f KB" below 1 MiB, else "%.1f MB".
func formatSize(n int64) string {
	const kib, mib = 1024, 1024 * 1024
	switch {
	case n < kib:
		return fmt.Sprintf("%d B", n)
	case n < mib:
		return fmt.Sprintf("%.1f KB", float64(n)/kib)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/mib)
}
