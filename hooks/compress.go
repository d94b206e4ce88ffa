package hooks

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/entirecli/entire/internal/panics"
	"github.com/entirecli/entire/strategy"
	"github.com/go-git/go-git/v5/plumbing"
)

// A hook that stores tens of megabytes at once writes them undeflated
// (gitrepo.Repo.DeferDeflation) and has `entire hooks compress-objects`,
// started detached and at low priority, deflate them after it answered.

// compressYield bounds how long the compressing process waits for turn
// finishers before each object.
const compressYield = time.Minute

// compressRequest is what the compressing process reads on its standard
// input: the objects to deflate.
type compressRequest struct {
	Objects []string `json:"objects"`
}

// compressLater starts the process that deflates the objects senv's Repo
// wrote undeflated, if any. Failing to start it loses nothing: the objects
// are valid as they are, and git gc packs them.
func compressLater(senv *strategy.Env) {
	objects := senv.Repo.Deferred()
	if len(objects) == 0 {
		return
	}
	req := compressRequest{Objects: make([]string, len(objects))}
	for i, h := range objects {
		req.Objects[i] = h.String()
	}
	pid, err := startDetached(senv, "compress-objects", req)
	if err != nil {
		senv.Log.Warn("start the object compressor; the objects stay undeflated until git gc", "objects", len(objects), "error", err)
		return
	}
	senv.Log.Info("deflating objects in the background", "objects", len(objects), "pid", pid)
}

// RunCompressObjects handles `entire hooks compress-objects`: it reads a
// compressRequest from stdin and deflates those loose objects in place.
// Failures are logged; the exit status is 0 (nothing waits for it).
func RunCompressObjects(ctx context.Context, env Env) (code int) {
	var perr error
	defer func() {
		if perr != nil {
			env.warnf("[entire] compress objects: %v\n", perr)
			code = 0
		}
	}()
	defer panics.Recover(&perr)
	repo, err := env.OpenRepo()
	if err != nil {
		return 0
	}
	senv, log, err := open(env, repo, "compress", loadSettings(repo.Root))
	if err != nil {
		return 0
	}
	defer log.Close()
	var req compressRequest
	if err := json.NewDecoder(io.LimitReader(env.Stdin, 1<<20)).Decode(&req); err != nil {
		log.Warn("compress objects: bad request", "error", err)
		return 0
	}
	objects := make([]plumbing.Hash, 0, len(req.Objects))
	for _, s := range req.Objects {
		if h := plumbing.NewHash(s); len(s) == 40 && h.String() == s {
			objects = append(objects, h)
		}
	}
	// A turn finisher's steps are waited for by commands and commits; the
	// compression of objects nobody waits for goes after them.
	var failed error
	for _, h := range objects {
		if err := senv.Sessions.AwaitTurnFinishes(compressYield); err != nil {
			log.Info("compress objects: a turn finisher still runs; going on", "error", err)
		}
		if err := senv.Repo.CompressLoose([]plumbing.Hash{h}); err != nil && failed == nil {
			failed = err
		}
	}
	if failed != nil {
		log.Warn("compress objects", "error", failed)
		return 0
	}
	log.Info("compress objects: finished", "objects", len(objects))
	return 0
}
