package hooks

import (
	"context"
	"time"

	"github.com/entirecli/entire/internal/logging"
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
func RunCompressObjects(ctx context.Context, env Env) int {
	var req compressRequest
	return runDetached(ctx, env, "compress", false, &req, func(_ context.Context, senv *strategy.Env, log *logging.Logger) {
		objects := make([]plumbing.Hash, 0, len(req.Objects))
		for _, s := range req.Objects {
			if h := plumbing.NewHash(s); len(s) == 40 && h.String() == s {
				objects = append(objects, h)
			}
		}
		// A turn finisher's steps are waited for by commands and commits;
		// the compression of objects nobody waits for goes after them.
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
			return
		}
		log.Info("compress objects: finished", "objects", len(objects))
	})
}
