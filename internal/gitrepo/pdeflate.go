package gitrepo

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"hash/adler32"
	"io"
	"runtime"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/klauspost/compress/flate"
)

// A large object held in memory is deflated on every core, the way pigz
// does it: the text is cut into blocks, each deflated alone and ended with
// a sync flush (a byte-aligned, non-final empty block), so that the blocks'
// output joined in order is one deflate stream, and the zlib trailer is the
// Adler-32 of the whole text. Each block starts without the previous one
// as its dictionary, which costs a fraction of a percent at these sizes.
const (
	// parallelDeflateAbove is the smallest object deflated in blocks.
	parallelDeflateAbove = 8 << 20
	// deflateBlock is the size of a block.
	deflateBlock = 2 << 20
)

// deflateInBlocks reports whether an object of size bytes is deflated by
// writeDeflatedBlocks.
func deflateInBlocks(size int64) bool {
	return size >= parallelDeflateAbove && runtime.GOMAXPROCS(0) > 1
}

// writeDeflatedBlocks writes to w the zlib stream of text deflated at
// level in blocks on every core, and returns the SHA-1 of text (which,
// for a loose object, starts with its header). At most twice as many
// blocks as cores are held at once. The deflaters and the blocks' output
// buffers are the Repo's, reused from object to object: a hide of 60 MB is
// eight objects of 8 MB, and new ones for each cost their tables and 45 MB
// of output buffers, allocated, faulted in page by page and left as
// garbage (which a hook does not collect below its memory bound).
func (r *Repo) writeDeflatedBlocks(w io.Writer, text []string, level int) (plumbing.Hash, error) {
	blocks := cutBlocks(text, deflateBlock)
	procs := runtime.GOMAXPROCS(0)
	type result struct {
		out *bytes.Buffer
		err error
	}
	results := make([]chan *result, len(blocks))
	for i := range results {
		results[i] = make(chan *result, 1)
	}
	jobs := make(chan int)
	ahead := make(chan struct{}, 2*procs)
	stop := make(chan struct{})
	defer close(stop)
	for range min(procs, len(blocks)) {
		go func() {
			// One deflater a worker, reset for each block: a deflater's
			// tables are megabytes.
			fw := r.flateWriter(level)
			defer func() { r.putFlateWriter(fw, level) }()
			for i := range jobs {
				res := &result{out: r.blockBuffer()}
				var err error
				if fw == nil {
					fw, err = flate.NewWriter(res.out, level)
				} else {
					fw.Reset(res.out)
				}
				if err == nil {
					_, err = fw.Write(stringBytes(blocks[i]))
				}
				if err == nil {
					if i == len(blocks)-1 {
						err = fw.Close()
					} else {
						err = fw.Flush()
					}
				}
				res.err = err
				results[i] <- res
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := range blocks {
			select {
			case ahead <- struct{}{}:
			case <-stop:
				return
			}
			jobs <- i
		}
	}()
	// The hashes run here while the blocks are deflated.
	sum, check := sha1.New(), adler32.New()
	for _, t := range text {
		sum.Write(stringBytes(t))
		check.Write(stringBytes(t))
	}
	if _, err := w.Write(zlibHeader[:]); err != nil {
		return plumbing.ZeroHash, err
	}
	for i := range blocks {
		res := <-results[i]
		<-ahead
		if res.err != nil {
			return plumbing.ZeroHash, res.err
		}
		_, err := w.Write(res.out.Bytes())
		r.putBlockBuffer(res.out)
		if err != nil {
			return plumbing.ZeroHash, err
		}
	}
	if _, err := w.Write(binary.BigEndian.AppendUint32(nil, check.Sum32())); err != nil {
		return plumbing.ZeroHash, err
	}
	var h plumbing.Hash
	copy(h[:], sum.Sum(nil))
	return h, nil
}

// flateWriter returns a raw deflater at level that this Repo used before,
// or nil when it has none (the caller makes one on its first output).
func (r *Repo) flateWriter(level int) *flate.Writer {
	if i, ok := zlibPool(level); ok {
		if fw, ok := r.flateWriters[i].Get().(*flate.Writer); ok {
			return fw
		}
	}
	return nil
}

// putFlateWriter keeps fw, made at level, for the next object.
func (r *Repo) putFlateWriter(fw *flate.Writer, level int) {
	if i, ok := zlibPool(level); ok && fw != nil {
		r.flateWriters[i].Put(fw)
	}
}

// blockBuffer returns an empty buffer for a block's deflated output, with
// room for an incompressible block.
func (r *Repo) blockBuffer() *bytes.Buffer {
	if b, ok := r.blockBuffers.Get().(*bytes.Buffer); ok {
		return b
	}
	b := new(bytes.Buffer)
	b.Grow(deflateBlock + deflateBlock/64 + 64)
	return b
}

// putBlockBuffer keeps b for the next block.
func (r *Repo) putBlockBuffer(b *bytes.Buffer) {
	b.Reset()
	r.blockBuffers.Put(b)
}

// cutBlocks cuts each piece of text into blocks of size bytes (a piece's
// last may be shorter) that share text's memory: joining pieces into a
// block would copy it, and the blocks of an object's header and body
// deflate as well apart.
func cutBlocks(text []string, size int) []string {
	var blocks []string
	for _, t := range text {
		for len(t) > size {
			blocks = append(blocks, t[:size])
			t = t[size:]
		}
		if len(t) > 0 {
			blocks = append(blocks, t)
		}
	}
	if len(blocks) == 0 {
		blocks = append(blocks, "")
	}
	return blocks
}

// stringBytes returns the bytes of s without a copy, for writers that only
// read them (hashes and deflaters do not keep or change what they are
// given); io.WriteString would copy a string of many megabytes.
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// zlibHeader is a zlib stream header: deflate, 32 KiB window, no preset
// dictionary, the compression level hint left at "fastest" (readers
// ignore it).
var zlibHeader = [2]byte{0x78, 0x01}
