// Package mcpserver serves entire's agent tools over the Model Context
// Protocol: the hide navigation tools (hide_next, hide_jump, hide_search,
// defined by hide.ToolDefs) over a hide.Store, and the note tools
// (note_save, note_list, note_show, note_delete, note_pin, note_unpin) over
// a notes.Store. Tool failures a model can fix (unknown hide, invalid key,
// quota) are tool results with IsError set, worded so the model can act on
// them; they never end the session.
package mcpserver
