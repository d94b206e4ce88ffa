package push

import (
	"net/url"
	"strings"
)

// remoteURL is a git remote URL taken apart, as far as deriving a sibling
// repository's URL and comparing owners needs.
type remoteURL struct {
	// scheme is "ssh" (scp-like or ssh://), "https", "http", or "" for
	// anything else (a path, file://, git://): no sibling is derived from
	// those.
	scheme string
	// user is the SSH user ("git"), port the port when one is given.
	user, host, port string
	// path is the repository path without leading or trailing slashes
	// and without ".git".
	path string
}

// parseRemoteURL takes a remote URL apart. It never fails: what it does not
// recognise has an empty scheme and host.
func parseRemoteURL(raw string) remoteURL {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return remoteURL{}
	}
	if i := strings.Index(raw, "://"); i > 0 {
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			return remoteURL{}
		}
		out := remoteURL{host: strings.ToLower(u.Hostname()), port: u.Port(), path: cleanRepoPath(u.Path)}
		switch strings.ToLower(u.Scheme) {
		case "ssh", "git+ssh", "ssh+git":
			out.scheme = "ssh"
			out.user = u.User.Username()
		case "https":
			out.scheme = "https"
		case "http":
			out.scheme = "http"
		default:
			out.host = ""
		}
		return out
	}
	// scp-like: [user@]host:path, the colon before any slash (git's rule;
	// "./a:b" and "/a:b" are paths).
	colon := strings.IndexByte(raw, ':')
	slash := strings.IndexByte(raw, '/')
	if colon <= 0 || (slash >= 0 && slash < colon) {
		return remoteURL{}
	}
	hostPart, path := raw[:colon], raw[colon+1:]
	user := ""
	if at := strings.LastIndexByte(hostPart, '@'); at >= 0 {
		user, hostPart = hostPart[:at], hostPart[at+1:]
	}
	hostPart = strings.TrimSuffix(strings.TrimPrefix(hostPart, "["), "]")
	if hostPart == "" {
		return remoteURL{}
	}
	return remoteURL{scheme: "ssh", user: user, host: strings.ToLower(hostPart), path: cleanRepoPath(path)}
}

// cleanRepoPath trims slashes, "~" and ".git" from a repository path.
func cleanRepoPath(p string) string {
	p = strings.Trim(p, "/")
	p = strings.TrimPrefix(p, "~")
	p = strings.Trim(p, "/")
	return strings.TrimSuffix(p, ".git")
}

// owner is the first segment of the repository path ("acme" of
// "acme/app"), "" when the path has fewer than two segments or the URL
// was not understood.
func (u remoteURL) owner() string {
	if u.host == "" {
		return ""
	}
	owner, rest, ok := strings.Cut(u.path, "/")
	if !ok || owner == "" || rest == "" {
		return ""
	}
	return owner
}

// hostPort is host, with ":port" when a port is given.
func (u remoteURL) hostPort() string {
	if u.port == "" {
		return u.host
	}
	return u.host + ":" + u.port
}

// forgeProvider returns the provider whose public host host is ("github"
// for "github.com"), "" for any other host (a self-hosted one).
func forgeProvider(host string) string {
	switch host {
	case "github.com", "www.github.com", "ssh.github.com":
		return "github"
	case "gitlab.com", "www.gitlab.com", "altssh.gitlab.com":
		return "gitlab"
	case "bitbucket.org", "www.bitbucket.org", "altssh.bitbucket.org":
		return "bitbucket"
	}
	return ""
}
