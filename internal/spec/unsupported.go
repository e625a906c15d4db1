package spec

import "errors"

// ErrUnsupported marks what hudi-go does not support (yet): a table feature, a setting's
// value, an operation on a table version, an HFile or payload feature. It is the one
// "unsupported" sentinel: every package's own (write.ErrUnsupported, the services', …)
// matches it with errors.Is, and hudi.ErrUnsupported is this value, so a caller of the
// public API tests for one error whatever package refused.
var ErrUnsupported = errors.New("not supported")

// Unsupported returns a sentinel error that reads msg and matches ErrUnsupported with
// errors.Is: for packages whose refusals name what they do not support in their own words.
// Each call returns a distinct error, so errors.Is also tells the packages' sentinels apart.
func Unsupported(msg string) error { return &unsupportedError{msg: msg} }

type unsupportedError struct{ msg string }

func (e *unsupportedError) Error() string { return e.msg }
func (e *unsupportedError) Unwrap() error { return ErrUnsupported }
