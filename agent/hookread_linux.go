package agent

import (
	"errors"
	"io"
	"syscall"
)

// madvHugePage is MADV_HUGEPAGE: back the range with 2 MB pages where the
// kernel can (transparent huge pages in "madvise" mode, the common
// default).
const madvHugePage = 14

// readMapped reads head and then the rest of r, up to limit+1 bytes in
// all, into anonymous memory mapped for it and advised for huge pages,
// and returns it; ok is false, with nothing of r read, when the memory
// cannot be mapped.
//
// A hook's payload of tens of megabytes read into the Go heap costs a page
// fault for every 4 KB page it touches, and in a virtual machine those
// cost more than reading the payload (60 MB: about 15,000 faults, 220 ms
// of a hook on the CI machine, against 50-140 ms with huge pages). The
// mapping is never unmapped: the payload's bytes are shared by the
// strings decoded from it, which live as long as the process, and a hook
// process reads one payload.
func readMapped(head []byte, r io.Reader, limit int64) (data []byte, ok bool, err error) {
	size := int(limit + 1)
	m, merr := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if merr != nil {
		return nil, false, nil
	}
	_ = syscall.Madvise(m, madvHugePage) // without it: 4 KB pages, as the heap
	n := copy(m, head)
	for n < size {
		k, rerr := r.Read(m[n:])
		n += k
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			_ = syscall.Munmap(m)
			return nil, true, rerr
		}
	}
	if n > int(limit) {
		_ = syscall.Munmap(m)
		return nil, true, errTooLarge
	}
	return m[:n:n], true, nil
}
