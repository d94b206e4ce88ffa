package agent

import "io"

// ReadAtMost reads r to its end, but never more than limit+1 bytes: input
// longer than limit bytes gives tooLarge true and no data, having read only
// that much of it, so a caller can refuse it with its own error without
// ever holding more than limit+1 bytes. A read error is returned as it is
// (with no data), before any size check.
func ReadAtMost(r io.Reader, limit int64) (data []byte, tooLarge bool, err error) {
	data, err = io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(data)) > limit {
		return nil, true, nil
	}
	return data, false, nil
}
