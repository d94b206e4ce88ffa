package push

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/entirecli/entire/internal/gitrepo"
	"github.com/entirecli/entire/internal/settings"
	"github.com/go-git/go-git/v5/plumbing"
	format "github.com/go-git/go-git/v5/plumbing/format/config"
)

// EnvCheckpointToken names the environment variable holding an HTTPS token
// for the checkpoint repository (sent as HTTP Basic, x-access-token), for
// checkpoint pushes and fetches only. It is passed to git in its
// environment, never written to disk or to a log.
const EnvCheckpointToken = "ENTIRE_CHECKPOINT_TOKEN"

// trackPrefix is the remote-tracking namespace of a checkpoint repository
// of its own: refs/remotes/entire-checkpoints/<host>/<owner>/<name>/...
const trackPrefix = "entire-checkpoints/"

// Destination is where checkpoint data (the entire/<name>/v1 branches)
// goes and comes from, as the settings say (SPEC 10.1): a configured remote,
// a repository of its own derived from the pushed remote's URL, or nowhere
// (Local says why). Build it with Resolve.
type Destination struct {
	// Remote is the configured remote's name; "" for a repository of its
	// own.
	Remote string
	// URL is a repository of its own's URL, as git is given it.
	URL string
	// Repo is a repository of its own as set ("github:acme/app-checkpoints").
	Repo string
	// Source says which setting chose the destination: "strategy_options.
	// checkpoint_remote in .entire/settings.json", or "default".
	Source string
	// Local, when not empty, is the one line saying why checkpoint data
	// stays on this machine; Fix then says what makes it go somewhere.
	Local, Fix string
	// Disabled: push_sessions is false: this clone's data stays local
	// (the user's choice; no warning is due), but the destination is
	// still read from.
	Disabled bool
	// NoRemote: no setting names a destination and the repository has no
	// remote yet: data is pushed once it has one.
	NoRemote bool
	// Inherited: a committed checkpoint_remote this clone does not follow
	// (its owner is not the pushed remote's).
	Inherited bool
	// Note is a warning about the resolution that did not stop it (a
	// token that is not usable).
	Note string

	track string
	env   []string
}

// Pushes reports whether checkpoint data leaves the machine.
func (d Destination) Pushes() bool { return d.Fetches() && !d.Disabled }

// Fetches reports whether checkpoint data may be fetched from the
// destination (also when push_sessions keeps this clone's own data local).
func (d Destination) Fetches() bool { return d.Local == "" && (d.Remote != "" || d.URL != "") }

// Name is how messages name the destination: the remote's name, or the
// repository ("github:acme/app-checkpoints").
func (d Destination) Name() string {
	if d.Remote != "" {
		return d.Remote
	}
	if d.Repo != "" {
		return d.Repo
	}
	return d.URL
}

// Track is the namespace of the destination's remote-tracking refs:
// refs/remotes/<Track>/<branch>.
func (d Destination) Track() string {
	if d.track != "" {
		return d.track
	}
	return d.Remote
}

// TrackingRef is the remote-tracking ref of branch at the destination.
func (d Destination) TrackingRef(branch string) plumbing.ReferenceName {
	return trackingRef(d.Track(), branch)
}

// arg is what git is given to reach the destination: the remote's name or
// the repository's URL.
func (d Destination) arg() string {
	if d.Remote != "" {
		return d.Remote
	}
	return d.URL
}

// FetchArg is what `git fetch` is given to reach the destination (the
// remote's name or the repository's URL), "" when nothing is fetched from
// it.
func (d Destination) FetchArg() string {
	if !d.Fetches() {
		return ""
	}
	return d.arg()
}

// RemoteDestination is the destination of a configured remote by name,
// for callers that already know it (tests, the team benchmark).
func RemoteDestination(name string) Destination {
	return Destination{Remote: name, Source: "given"}
}

// Is reports whether pushed (a remote name or URL, as git gives it to the
// pre-push hook) is the destination itself.
func (d Destination) Is(repo *gitrepo.Repo, pushed string) bool {
	if !d.Fetches() || pushed == "" {
		return false
	}
	if d.Remote != "" {
		return isCheckpointRemote(repo, pushed, d.Remote)
	}
	if sameURL(pushed, d.URL) {
		return true
	}
	r, ok := findRemote(repo, pushed)
	if !ok {
		return false
	}
	for _, u := range append(r.urls, r.pushURLs...) {
		if sameURL(u, d.URL) {
			return true
		}
	}
	return false
}

// Carries reports whether a push to pushed carries checkpoint data: a push
// to the destination remote, or any push when the data goes to a
// repository of its own (Resolve already judged the pushed remote).
func (d Destination) Carries(repo *gitrepo.Repo, pushed string) bool {
	if !d.Pushes() || pushed == "" {
		return false
	}
	if d.Remote != "" {
		return isCheckpointRemote(repo, pushed, d.Remote)
	}
	return true
}

// ResolveOptions are the circumstances of a resolution.
type ResolveOptions struct {
	// Pushed is the remote being pushed (the pre-push hook's $1: a name
	// or a URL); "" outside a push (fetches, status): origin, or the
	// elected remote, stands for it.
	Pushed string
	// Getenv reads the environment (ENTIRE_CHECKPOINT_TOKEN,
	// GIT_CONFIG_COUNT); nil reads nothing.
	Getenv func(string) string
}

// Resolve works out the destination of checkpoint data from s (SPEC 10.1):
//
//   - settings that could not be read, a checkpoint setting that is not
//     understood (an unknown provider, a malformed object, a number), a
//     checkpoint_push_remote that is not a remote: nothing leaves (fail
//     closed), Local says why;
//   - checkpoint_remote {"provider", "repo"}: the repository repo on the
//     pushed remote's host (its scheme: SSH or HTTPS), unless the object is
//     inherited: committed in .entire/settings.json while the owner of
//     origin or of a push URL of the pushed remote is not repo's owner
//     (a fork's contributor, a mirror); then nothing leaves. The object in
//     an untracked .entire/settings.local.json is always followed;
//   - checkpoint_remote as a string: that configured remote;
//   - checkpoint_push_remote: that configured remote;
//   - none of them: origin, else the only remote, else the first one in
//     .git/config.
func Resolve(ctx context.Context, repo *gitrepo.Repo, s *settings.Settings, opts ResolveOptions) Destination {
	d := resolve(ctx, repo, s, opts)
	d.Disabled = !s.PushSessions()
	return d
}

func resolve(ctx context.Context, repo *gitrepo.Repo, s *settings.Settings, opts ResolveOptions) Destination {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if s.Unreadable != nil {
		return Destination{Source: "settings", Local: fmt.Sprintf("the settings cannot be read (%v)", s.Unreadable),
			Fix: "fix or remove the settings file named above"}
	}
	if t, err := s.CheckpointsType(); err != nil {
		return Destination{Source: "settings", Local: err.Error(), Fix: `set "checkpoints": {"primary": {"type": "git-refs"}} (or "git-branch")`}
	} else if !settings.CheckpointsKnown(t) {
		return Destination{Source: "settings", Local: fmt.Sprintf("checkpoints.primary.type %q is not a layout this version knows", t),
			Fix: `set checkpoints.primary.type to "git-refs" or "git-branch", or update entire`}
	}
	remotes, err := listRemotes(repo)
	if err != nil {
		return Destination{Source: "git config", Local: fmt.Sprintf("the remotes cannot be read (%v)", err), Fix: "fix .git/config"}
	}
	cr := s.CheckpointRemoteSetting()
	switch cr.Kind {
	case settings.CheckpointRemoteInvalid:
		return Destination{Source: cr.Key() + " in " + cr.File, Local: cr.Problem,
			Fix: `set it to {"provider": "github", "repo": "owner/name"} or a remote's name, or remove it`}
	case settings.CheckpointRemoteRepo:
		return resolveRepo(ctx, repo, remotes, cr, opts.Pushed, getenv)
	case settings.CheckpointRemoteName:
		d := Destination{Remote: cr.Remote, Source: cr.Key() + " in " + cr.File}
		if _, ok := remotes.get(cr.Remote); !ok {
			d.Local = fmt.Sprintf("remote '%s' (%s) does not exist", cr.Remote, cr.Key())
			d.Fix = fmt.Sprintf("add it with `git remote add %s <url>`, or change %s in %s", cr.Remote, cr.Key(), cr.File)
			d.NoRemote = true
		}
		d.env = tokenEnv(d, remotes, getenv)
		return d
	}
	if name, file, problem, ok := s.CheckpointPushRemote(); ok {
		key := "strategy_options." + settings.OptCheckpointPushRemote
		d := Destination{Remote: name, Source: key + " in " + file}
		switch {
		case problem != "":
			d.Local, d.Fix = problem, "set it to the name of one of this repository's remotes, or remove it"
		case !remotes.has(name):
			d.Local = fmt.Sprintf("%s names remote '%s', which is not one of this repository's remotes: nothing is synced", key, name)
			d.Fix = fmt.Sprintf("add it with `git remote add %s <url>`, or change %s in %s", name, key, file)
		}
		d.env = tokenEnv(d, remotes, getenv)
		return d
	}
	name := remotes.elect()
	if name == "" {
		return Destination{Remote: DefaultCheckpointRemote, Source: "default", NoRemote: true,
			Local: fmt.Sprintf("remote '%s' does not exist", DefaultCheckpointRemote),
			Fix:   "add a remote; checkpoints are pushed to it with your branches"}
	}
	d := Destination{Remote: name, Source: "default"}
	d.env = tokenEnv(d, remotes, getenv)
	return d
}

// resolveRepo resolves a checkpoint_remote object: see Resolve.
func resolveRepo(ctx context.Context, repo *gitrepo.Repo, remotes remoteList, cr settings.CheckpointRemoteSetting, pushed string, getenv func(string) string) Destination {
	d := Destination{Repo: cr.String(), Source: cr.Key() + " in " + cr.File}
	// The pushed remote's push URLs, or origin's (else the elected
	// remote's) outside a push.
	var pushURLs []string
	base := pushed
	if base == "" {
		base = remotes.elect()
	}
	if r, ok := remotes.get(base); ok {
		pushURLs = r.pushTargets()
	} else if pushed != "" {
		pushURLs = []string{pushed} // a push to a URL
	}
	if len(pushURLs) == 0 {
		d.Local = fmt.Sprintf("no remote to derive %s's URL from", d.Repo)
		d.Fix = "add the remote you push to (origin); checkpoint data then goes to " + d.Repo
		d.NoRemote = true
		return d
	}
	localFix := fmt.Sprintf("to send it there anyway, set the same %s in the untracked %s (`entire enable --local --checkpoint-remote %s`)",
		cr.Key(), settings.LocalRel, cr.String())
	if !(cr.File == settings.LocalRel && untracked(ctx, repo, settings.LocalRel)) {
		owners := append([]string(nil), pushURLs...)
		if o, ok := remotes.get(DefaultCheckpointRemote); ok {
			owners = append(owners, o.urls...)
		}
		for _, u := range owners {
			if o := parseRemoteURL(u).owner(); !strings.EqualFold(o, cr.Owner) {
				who := o
				if who == "" {
					who = "an owner it cannot tell"
				}
				d.Inherited = true
				d.Local = fmt.Sprintf("%s in %s names %s, but %s belongs to %s: an inherited setting is not followed, checkpoint data stays local",
					cr.Key(), cr.File, d.Repo, redactURL(u), who)
				d.Fix = localFix
				return d
			}
		}
	}
	u := parseRemoteURL(pushURLs[0])
	if p := forgeProvider(u.host); p != "" && p != cr.Provider {
		d.Local = fmt.Sprintf("%s names %s, but the pushed remote is on %s", cr.Key(), d.Repo, u.host)
		d.Fix = fmt.Sprintf("use provider %q, or push to a remote on %s", p, settings.ProviderHost(cr.Provider))
		return d
	}
	host, scheme, user, port := u.host, u.scheme, u.user, u.port
	if host == "" || scheme == "" {
		// A path or file:// remote: the provider's public host.
		host, scheme, user, port = settings.ProviderHost(cr.Provider), "https", "", ""
	}
	token := getenv(EnvCheckpointToken)
	if token != "" && !usableToken(token) {
		d.Note = EnvCheckpointToken + " holds control characters or spaces: not used"
		token = ""
	}
	if token != "" && scheme != "https" {
		// A token is an HTTPS credential: SSH becomes HTTPS on the same
		// host.
		scheme, user, port = "https", "", ""
	}
	switch scheme {
	case "ssh":
		if user == "" {
			user = "git"
		}
		if port != "" {
			d.URL = fmt.Sprintf("ssh://%s@%s:%s/%s.git", user, host, port, cr.Repo)
		} else {
			d.URL = fmt.Sprintf("%s@%s:%s.git", user, host, cr.Repo)
		}
	default:
		hp := host
		if port != "" {
			hp += ":" + port
		}
		d.URL = fmt.Sprintf("%s://%s/%s.git", scheme, hp, cr.Repo)
	}
	d.track = trackPrefix + host + "/" + strings.TrimSuffix(cr.Repo, ".git")
	if token != "" && scheme == "https" {
		d.env = headerEnv(token, getenv)
	}
	return d
}

// tokenEnv returns the token's git environment for a configured remote
// destination whose URL is HTTPS, nil otherwise.
func tokenEnv(d Destination, remotes remoteList, getenv func(string) string) []string {
	token := getenv(EnvCheckpointToken)
	if token == "" || !usableToken(token) || d.Local != "" {
		return nil
	}
	r, ok := remotes.get(d.Remote)
	if !ok {
		return nil
	}
	for _, u := range append(r.urls, r.pushURLs...) {
		if parseRemoteURL(u).scheme != "https" {
			return nil
		}
	}
	return headerEnv(token, getenv)
}

// headerEnv returns the environment that makes git send token as HTTP
// Basic credentials (x-access-token), appended to the configuration the
// environment already passes (GIT_CONFIG_COUNT).
func headerEnv(token string, getenv func(string) string) []string {
	n, err := strconv.Atoi(strings.TrimSpace(getenv("GIT_CONFIG_COUNT")))
	if err != nil || n < 0 {
		n = 0
	}
	enc := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token))
	return []string{
		fmt.Sprintf("GIT_CONFIG_COUNT=%d", n+1),
		fmt.Sprintf("GIT_CONFIG_KEY_%d=http.extraHeader", n),
		fmt.Sprintf("GIT_CONFIG_VALUE_%d=Authorization: Basic %s", n, enc),
	}
}

// usableToken reports whether a token can go into an HTTP header.
func usableToken(t string) bool {
	for _, r := range t {
		if r <= ' ' || r == 0x7f {
			return false
		}
	}
	return len(t) <= 4096
}

// redactURL hides credentials a URL may hold ("https://user:pw@host").
func redactURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	if at := strings.LastIndexByte(strings.SplitN(rest, "/", 2)[0], '@'); at >= 0 {
		return scheme + "://" + rest[at+1:]
	}
	return u
}

// untracked reports whether the repository-relative path is not in the
// index (a settings.local.json committed by someone is a committed file).
func untracked(ctx context.Context, repo *gitrepo.Repo, rel string) bool {
	out, err := repo.RunGit(ctx, "ls-files", "--", rel)
	return err == nil && strings.TrimSpace(string(out)) == ""
}

// remoteConf is one [remote "<name>"] section.
type remoteConf struct {
	name           string
	urls, pushURLs []string
}

// pushTargets are the URLs a push to the remote goes to: its pushurl
// values, else its url values.
func (r remoteConf) pushTargets() []string {
	if len(r.pushURLs) > 0 {
		return r.pushURLs
	}
	return r.urls
}

// remoteList is the configured remotes in .git/config order.
type remoteList []remoteConf

func listRemotes(repo *gitrepo.Repo) (remoteList, error) {
	cfg, err := repo.Git.Config()
	if err != nil {
		return nil, fmt.Errorf("read git config: %w", err)
	}
	var out remoteList
	for _, sub := range cfg.Raw.Section("remote").Subsections {
		out = append(out, remoteOf(sub))
	}
	return out, nil
}

func remoteOf(sub *format.Subsection) remoteConf {
	return remoteConf{name: sub.Name, urls: sub.Options.GetAll("url"), pushURLs: sub.Options.GetAll("pushurl")}
}

func (l remoteList) get(name string) (remoteConf, bool) {
	for _, r := range l {
		if r.name == name {
			return r, true
		}
	}
	return remoteConf{}, false
}

func (l remoteList) has(name string) bool {
	_, ok := l.get(name)
	return ok
}

// elect is the remote that carries checkpoint data when no setting names
// one: origin, else the only remote, else the first in .git/config; ""
// when there is none.
func (l remoteList) elect() string {
	if l.has(DefaultCheckpointRemote) {
		return DefaultCheckpointRemote
	}
	if len(l) > 0 {
		return l[0].name
	}
	return ""
}

// findRemote returns the configured remote pushed names, by name or by
// URL.
func findRemote(repo *gitrepo.Repo, pushed string) (remoteConf, bool) {
	l, err := listRemotes(repo)
	if err != nil {
		return remoteConf{}, false
	}
	if r, ok := l.get(pushed); ok {
		return r, true
	}
	return remoteConf{}, false
}
