// Package checkpoint stores what entire records in git: checkpoint IDs and
// commit-message trailers, the temporary checkpoints written on shadow
// branches (entire/<sha7>-<hash6>) after every agent turn, and the committed
// checkpoints on the orphan branch entire/checkpoints/v1, in the exact
// formats of the Entire CLI 0.4.x (SPEC sections 3.5-3.9 and 4.5).
//
// Transcripts are stored as prefix-stable chunks of at most 4 MB: when a
// transcript only grew since the last checkpoint, every chunk but the last is
// byte-identical to the one already stored, so git keeps it once. Readers
// join any number of chunks, as Entire 0.4.x readers do. A longer line is
// a chunk of its own, up to SPEC 4.5's 50 MiB; a line longer than that has
// values moved out into the full.jsonl.blobs tree beside the chunks (see
// BlobDir), which ReadTranscript puts back.
package checkpoint
