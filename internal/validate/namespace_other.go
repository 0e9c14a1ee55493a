//go:build !linux

package validate

import "errors"

// isolated needs Linux mount namespaces; elsewhere the validators fall
// back as when unshare(2) is not permitted.
func isolated(setup func() error, fn func()) error {
	return &nsError{"unshare", errors.ErrUnsupported}
}

type nsError struct {
	op  string
	err error
}

func (e *nsError) Error() string { return e.op + ": " + e.err.Error() }
func (e *nsError) Unwrap() error { return e.err }

func mountTmpfs(dir string, mode uint32) error { return errors.ErrUnsupported }
func bindFile(src, dst string) error           { return errors.ErrUnsupported }
func shadowDir(dir string) error               { return errors.ErrUnsupported }
