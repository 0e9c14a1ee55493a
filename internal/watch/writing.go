package watch

import (
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// WritingMax bounds how long an apply waits for a file of conf.d that a
// process keeps open for writing.
const WritingMax = 10 * time.Minute

// writing names a file of conf.d that some process has open for
// writing, or "": a copy in progress (smbd keeps the file open until the
// copy ends, and over Wi-Fi a piece may come seconds late, after the
// quiet time). An fd link in /proc/PID/fd has the write bit when the
// file is open for writing.
func (w *Watcher) writing() string {
	sys := w.Engine.Sys
	proc := sys.Root("/proc")
	pids, err := sys.ReadDir(proc)
	if err != nil {
		return ""
	}
	prefix := w.confDir() + string(filepath.Separator)
	for _, p := range pids {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		dir := filepath.Join(proc, p.Name(), "fd")
		fds, _ := sys.ReadDir(dir)
		for _, fd := range fds {
			fi, err := sys.Lstat(filepath.Join(dir, fd.Name()))
			if err != nil || fi.Mode().Perm()&0o200 == 0 {
				continue
			}
			if target, err := sys.Readlink(filepath.Join(dir, fd.Name())); err == nil && strings.HasPrefix(target, prefix) {
				return strings.TrimPrefix(target, prefix)
			}
		}
	}
	return ""
}

// waitForCopies reports whether the apply must wait: a file of conf.d is
// open for writing, for less than WritingMax so far.
func (w *Watcher) waitForCopies() bool {
	name := w.writing()
	if name == "" {
		w.writingSince = time.Time{}
		return false
	}
	if w.writingSince.IsZero() {
		w.writingSince = time.Now()
		w.Log.Info("waiting: a file of conf.d is open for writing (a copy in progress)", "file", "conf.d/"+name)
	}
	if time.Since(w.writingSince) < WritingMax {
		return true
	}
	w.Log.Warn("conf.d is still open for writing; applying it all the same", "file", "conf.d/"+name, "after", WritingMax)
	return false
}
