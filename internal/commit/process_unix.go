//go:build unix

package commit

import (
	"errors"
	"syscall"
)

// processExists reports whether a process with this pid exists on this host (signal 0
// checks without signalling). EPERM means it exists but belongs to someone else.
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
