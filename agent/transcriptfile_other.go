//go:build !unix

package agent

import "os"

const openNonBlock = 0

func clearNonBlock(*os.File) error { return nil }
