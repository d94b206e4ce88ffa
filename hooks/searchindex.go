package hooks

import (
	"os"
	"os/exec"
	"path/filepath"

	"github.com/entirecli/entire/checkpoint"
	"github.com/entirecli/entire/internal/proc"
	"github.com/entirecli/entire/strategy"
)

// searchProgram indexes the checkpoints for entire search: the search
// links a library whose start-up costs every process that links it, so it
// lives in entire-web, never in this binary.
const searchProgram = "entire-web"

// indexLater starts `entire-web index <checkpoint>...` detached once a
// commit's checkpoint is written (those HEAD carries), when the repository has a search index (a search
// made one): the new checkpoint is indexed while nobody waits, and the
// next search finds it indexed. Without entire-web, or when it cannot
// start, the next search indexes it.
func indexLater(senv *strategy.Env) {
	if _, err := os.Stat(filepath.Join(senv.Repo.CommonDir, checkpoint.SearchIndexDir, "index")); err != nil {
		return
	}
	bin := ""
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), searchProgram); fileExists(p) {
			bin = p
		}
	}
	if bin == "" {
		p, err := exec.LookPath(searchProgram)
		if err != nil {
			return
		}
		bin = p
	}
	head, err := senv.Repo.Head()
	if err != nil {
		return
	}
	c, err := senv.Repo.Git.CommitObject(head)
	if err != nil {
		return
	}
	args := []string{"index", "--commit", head.String()}
	for _, id := range checkpoint.CheckpointsOf(c.Message) {
		args = append(args, id.String())
	}
	if len(args) == 3 {
		return // the commit is linked to no checkpoint
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = senv.Repo.Root
	proc.NewSession(cmd)
	if err := cmd.Start(); err != nil {
		senv.Log.Warn("start the search indexer", "error", err)
		return
	}
	senv.Log.Info("indexing the new checkpoint for search in the background", "pid", cmd.Process.Pid)
	cmd.Process.Release()
}

// fileExists reports whether p is a file.
func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
