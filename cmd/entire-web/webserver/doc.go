// Package webserver is the server of `entire web`: a local, read-only view
// of a repository's sessions and checkpoints, served on 127.0.0.1 only.
//
// Every page is HTML rendered here (html/template escapes every string),
// readable without script; the one script, served from the binary,
// only enhances (expand all, filter, keyboard paging). A request needs the
// run's random token: the printed URL carries it, the first request trades
// it for an HttpOnly, SameSite=Strict cookie and is redirected to the URL
// without it; any other request, or one for another Host than
// 127.0.0.1:<port>, gets 403. Every response carries a strict
// Content-Security-Policy (no inline script or style, images only from
// the page or raster data: URIs) and X-Content-Type-Options: nosniff.
package webserver
