// Package hide keeps large tool outputs ("hides") out of an agent's context
// window and hands them back one bounded page ("cut") at a time.
//
// Two stores share the same page arithmetic and the same Cut envelope:
//
//   - HideBuffer is an in-process store, safe for concurrent use, that a
//     single run fills with Store and pages through with Cut, Search and
//     FirstCut.
//   - Store persists hides as git objects on the branch entire/hides/v1, one
//     directory per hide (<id>/meta.json and <id>/content, the content split
//     into content, content.001, ... above 50 MB like transcripts), so they
//     travel with the metadata when it is pushed. Updates are
//     compare-and-swap on the branch ref, retried when another writer wins.
//
// Pages are byte ranges of pageSize bytes (DefaultPageSize when not set):
// page p (1-based) is [(p-1)*pageSize, min(p*pageSize, len)). Empty content
// is one empty page. A UTF-8 sequence may be split between two pages.
//
// Design rule: paging is not truncation, it is jurisdiction. The agent sees
// every byte if it asks for every page, and is told so in each envelope.
package hide
