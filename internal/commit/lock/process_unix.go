//go:build unix

package lock

import (
	"errors"
	"syscall"
)

// processExists reports whether a process with this pid exists on this host.
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
