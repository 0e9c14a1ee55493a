package systest

import (
	"io/fs"
	"os"
	"syscall"
)

// WriteFile is os.WriteFile while no process of ours can be forked. A
// child forked while a file is open for writing holds it open until its
// own exec, and running that file meanwhile fails with "text file busy"
// (golang/go#22315): a test that writes a script or a program and runs
// it, while other tests fork, writes it with WriteFile.
func WriteFile(name string, data []byte, perm fs.FileMode) error {
	return Unforked(func() error { return os.WriteFile(name, data, perm) })
}

// Unforked runs fn while no process of ours can be forked (os/exec
// takes syscall.ForkLock for writing around every fork): fn opens,
// writes and closes a file that is run later.
func Unforked(fn func() error) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return fn()
}
