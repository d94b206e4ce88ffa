package settings

import (
	"fmt"
	"strings"
)

// OptCheckpointPushRemote is the strategy_options key naming the one
// configured remote that carries checkpoint data (Entire's
// checkpoint_push_remote).
const OptCheckpointPushRemote = "checkpoint_push_remote"

// CheckpointRemoteKind says which form strategy_options.checkpoint_remote
// takes.
type CheckpointRemoteKind int

const (
	// CheckpointRemoteUnset: the key is absent.
	CheckpointRemoteUnset CheckpointRemoteKind = iota
	// CheckpointRemoteName: a string, the name of a configured remote
	// (this project's form).
	CheckpointRemoteName
	// CheckpointRemoteRepo: Entire's object {"provider": ..., "repo":
	// "owner/name"}, a repository of its own for checkpoint data.
	CheckpointRemoteRepo
	// CheckpointRemoteInvalid: present but not understood (an unknown
	// provider, a malformed object, a number). Checkpoint data then stays
	// local.
	CheckpointRemoteInvalid
)

// Forge providers accepted in checkpoint_remote.provider.
const (
	ProviderGitHub    = "github"
	ProviderGitLab    = "gitlab"
	ProviderBitbucket = "bitbucket"
)

// ProviderHost returns the public host of a provider ("github" ->
// "github.com"), "" for an unknown one.
func ProviderHost(provider string) string {
	switch provider {
	case ProviderGitHub:
		return "github.com"
	case ProviderGitLab:
		return "gitlab.com"
	case ProviderBitbucket:
		return "bitbucket.org"
	}
	return ""
}

// CheckpointRemoteSetting is strategy_options.checkpoint_remote as read,
// with the file it came from.
type CheckpointRemoteSetting struct {
	Kind CheckpointRemoteKind
	// Remote is the remote name of the string form.
	Remote string
	// Provider (lower case), Owner and Name are the object form's; Repo
	// is "owner/name" as written (GitLab's nested groups keep their
	// slashes in Owner's path: Owner is the first segment).
	Provider, Owner, Name, Repo string
	// Problem is the one line saying what is wrong with an invalid value.
	Problem string
	// File is the settings file that set the key, relative to the
	// repository root (".entire/settings.json"); "" when unset.
	File string
}

// Key returns "strategy_options.checkpoint_remote".
func (CheckpointRemoteSetting) Key() string { return "strategy_options." + OptCheckpointRemote }

// String is the value as a user writes it on the command line:
// "github:owner/name" or the remote name.
func (c CheckpointRemoteSetting) String() string {
	switch c.Kind {
	case CheckpointRemoteName:
		return c.Remote
	case CheckpointRemoteRepo:
		return c.Provider + ":" + c.Repo
	}
	return ""
}

// CheckpointRemoteSetting parses strategy_options.checkpoint_remote. The
// object's repo comes from a committed file, so it is validated here:
// segments of the forge's characters (letters, digits, '.', '_', '-', not
// starting with '.' or '-'), two of them (GitLab: two or more), so that it
// can never read as a git option, a transport or a path.
func (s *Settings) CheckpointRemoteSetting() CheckpointRemoteSetting {
	v, ok := s.StrategyOptions[OptCheckpointRemote]
	if !ok || v == nil {
		return CheckpointRemoteSetting{}
	}
	out := CheckpointRemoteSetting{File: s.OptionFile(OptCheckpointRemote)}
	invalid := func(format string, args ...any) CheckpointRemoteSetting {
		out.Kind = CheckpointRemoteInvalid
		out.Problem = fmt.Sprintf("%s in %s: ", out.Key(), out.fileOr()) + fmt.Sprintf(format, args...)
		return out
	}
	switch val := v.(type) {
	case string:
		name := strings.TrimSpace(val)
		if name == "" {
			return CheckpointRemoteSetting{}
		}
		if !ValidRemoteName(name) {
			return invalid("%q is not a remote name", name)
		}
		out.Kind, out.Remote = CheckpointRemoteName, name
		return out
	case map[string]any:
		for k := range val {
			if k != "provider" && k != "repo" {
				return invalid("unknown key %q (expected provider and repo)", k)
			}
		}
		provider, _ := val["provider"].(string)
		repo, _ := val["repo"].(string)
		provider = strings.ToLower(strings.TrimSpace(provider))
		if provider == "" || repo == "" {
			return invalid("needs both \"provider\" and \"repo\" as strings")
		}
		if ProviderHost(provider) == "" {
			return invalid("unknown provider %q (use github, gitlab or bitbucket)", provider)
		}
		owner, name, err := SplitRepo(provider, repo)
		if err != nil {
			return invalid("%v", err)
		}
		out.Kind, out.Provider, out.Repo, out.Owner, out.Name = CheckpointRemoteRepo, provider, repo, owner, name
		return out
	}
	return invalid("%s is not understood (expected {\"provider\": ..., \"repo\": \"owner/name\"} or a remote name)", jsonKind(v))
}

func (c CheckpointRemoteSetting) fileOr() string {
	if c.File == "" {
		return "the settings"
	}
	return c.File
}

// ParseCheckpointRemoteFlag parses "provider:owner/name", the value of
// `entire enable --checkpoint-remote`, as a checkpoint_remote object.
func ParseCheckpointRemoteFlag(v string) (map[string]any, error) {
	provider, repo, ok := strings.Cut(strings.TrimSpace(v), ":")
	provider = strings.ToLower(provider)
	if !ok || provider == "" || repo == "" {
		return nil, fmt.Errorf("--checkpoint-remote %q: expected provider:owner/name (e.g. github:acme/app-checkpoints)", v)
	}
	if ProviderHost(provider) == "" {
		return nil, fmt.Errorf("--checkpoint-remote: unknown provider %q (use github, gitlab or bitbucket)", provider)
	}
	if _, _, err := SplitRepo(provider, repo); err != nil {
		return nil, fmt.Errorf("--checkpoint-remote: %w", err)
	}
	return map[string]any{"provider": provider, "repo": repo}, nil
}

// maxRepoSegment bounds one segment of a repository path.
const maxRepoSegment = 100

// SplitRepo validates repo ("owner/name"; GitLab: "group/sub/name") for
// provider and returns its owner (the first segment) and name (the last).
func SplitRepo(provider, repo string) (owner, name string, err error) {
	segs := strings.Split(repo, "/")
	if len(segs) < 2 || (len(segs) > 2 && provider != ProviderGitLab) {
		return "", "", fmt.Errorf("repo %q is not owner/name", repo)
	}
	for _, seg := range segs {
		if !validRepoSegment(seg) {
			return "", "", fmt.Errorf("repo %q is not owner/name (letters, digits, '.', '_' and '-' only, not starting with '.' or '-')", repo)
		}
	}
	return segs[0], strings.TrimSuffix(segs[len(segs)-1], ".git"), nil
}

func validRepoSegment(seg string) bool {
	if seg == "" || len(seg) > maxRepoSegment || seg[0] == '.' || seg[0] == '-' {
		return false
	}
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return !strings.Contains(seg, "..")
}

// ValidRemoteName reports whether name can be a configured git remote's
// name that is safe to pass to git: no option ('-' first), no path or URL
// (no ':' and no '\\'), no whitespace or control characters, no "..".
func ValidRemoteName(name string) bool {
	if name == "" || len(name) > 200 || name[0] == '-' || name[0] == '.' || name[0] == '/' || strings.Contains(name, "..") {
		return false
	}
	for _, r := range name {
		if r <= ' ' || r == 0x7f || r == ':' || r == '\\' || r == '~' || r == '^' || r == '?' || r == '*' || r == '[' {
			return false
		}
	}
	return !strings.HasSuffix(name, "/") && !strings.HasSuffix(name, ".lock")
}

// CheckpointPushRemote returns strategy_options.checkpoint_push_remote:
// the remote name, the file that set it, and a problem line when the value
// is present but not a usable name. ok is false when the key is absent.
func (s *Settings) CheckpointPushRemote() (name, file, problem string, ok bool) {
	v, present := s.StrategyOptions[OptCheckpointPushRemote]
	if !present || v == nil {
		return "", "", "", false
	}
	file = s.OptionFile(OptCheckpointPushRemote)
	key := "strategy_options." + OptCheckpointPushRemote
	str, isStr := v.(string)
	str = strings.TrimSpace(str)
	switch {
	case !isStr:
		return "", file, fmt.Sprintf("%s in %s: %s is not a remote name", key, file, jsonKind(v)), true
	case str == "":
		return "", "", "", false
	case !ValidRemoteName(str):
		return "", file, fmt.Sprintf("%s in %s: %q is not a remote name", key, file, str), true
	}
	return str, file, "", true
}

// HasCheckpointSetting reports whether any setting about where checkpoint
// data goes is present (checkpoint_remote, checkpoint_push_remote). Only
// without one is a remote elected by default.
func (s *Settings) HasCheckpointSetting() bool {
	for _, k := range []string{OptCheckpointRemote, OptCheckpointPushRemote} {
		if v, ok := s.StrategyOptions[k]; ok && v != nil {
			if str, isStr := v.(string); isStr && strings.TrimSpace(str) == "" {
				continue
			}
			return true
		}
	}
	return false
}

// jsonKind names the JSON type of a decoded value, with its article ("a
// number").
func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case nil:
		return "null"
	}
	if _, ok := numberOpt(v); ok {
		return "a number"
	}
	return "a value"
}
