// Package settings reads and writes Entire's configuration files,
// .entire/settings.json (project, commit-able) and .entire/settings.local.json
// (personal, gitignored), in the format of the Entire CLI 0.4.x, and gives one
// typed accessor per setting with environment overrides resolved in one place
// (Effective).
//
// Both files are decoded strictly: an unknown top-level key is an error, so
// that a typo is reported instead of silently ignored. Options this tool adds
// beyond the 0.4.x key set live under "strategy_options", which 0.4.x accepts
// as a free-form object, so files written by us stay readable by 0.4.x.
package settings
