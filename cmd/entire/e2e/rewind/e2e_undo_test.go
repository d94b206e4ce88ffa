package rewind
