package gitrepo

import (
	"time"

	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Author returns the identity git would use for a commit made now: the
// repository's user.name and user.email, else the global ones, else
// "Unknown <unknown@local>". GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL win, as in
// git.
func (r *Repo) Author(now time.Time) object.Signature {
	sig := object.Signature{When: now}
	if cfg, err := r.Git.Config(); err == nil {
		sig.Name, sig.Email = cfg.User.Name, cfg.User.Email
	}
	if sig.Name == "" || sig.Email == "" {
		if cfg, err := config.LoadConfig(config.GlobalScope); err == nil {
			if sig.Name == "" {
				sig.Name = cfg.User.Name
			}
			if sig.Email == "" {
				sig.Email = cfg.User.Email
			}
		}
	}
	if v := r.env("GIT_AUTHOR_NAME"); v != "" {
		sig.Name = v
	}
	if v := r.env("GIT_AUTHOR_EMAIL"); v != "" {
		sig.Email = v
	}
	if sig.Name == "" {
		sig.Name = "Unknown"
	}
	if sig.Email == "" {
		sig.Email = "unknown@local"
	}
	return sig
}
