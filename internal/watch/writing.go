package watch

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// WritingMax bounds how long an apply waits for a file of conf.d that a
// process keeps open for writing (Watcher.WritingMax: 0 is this).
const WritingMax = 10 * time.Minute

// writing names the files of conf.d that some process has open for
// writing: a copy in progress (smbd keeps the file open until the
// copy ends, and over Wi-Fi a piece may come seconds late, after the
// quiet time). An fd link in /proc/PID/fd has the write bit when the
// file is open for writing.
func (w *Watcher) writing() []string {
	sys := w.Engine.Sys
	proc := sys.Root("/proc")
	pids, err := sys.ReadDir(proc)
	if err != nil {
		return nil
	}
	var names []string
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
			target, err := sys.Readlink(filepath.Join(dir, fd.Name()))
			if name := strings.TrimPrefix(target, prefix); err == nil && name != target && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	return names
}

// waitForCopies reports whether the apply must wait: a file of conf.d is
// open for writing, for less than WritingMax so far. Past it the apply
// goes on, and the status of each file still open says so.
func (w *Watcher) waitForCopies() bool {
	w.Engine.Writing = nil
	names := w.writing()
	if len(names) == 0 {
		w.writingSince = time.Time{}
		return false
	}
	if w.writingSince.IsZero() {
		w.writingSince = time.Now()
		w.Log.Info("waiting: a file of conf.d is open for writing (a copy in progress)", "file", "conf.d/"+names[0])
	}
	max := w.WritingMax
	if max == 0 {
		max = WritingMax
	}
	if time.Since(w.writingSince) < max {
		return true
	}
	w.Log.Warn("conf.d is still open for writing; applying it all the same", "files", names, "after", max)
	w.Engine.Writing = map[string]string{}
	for _, name := range names {
		w.Engine.Writing[name] = WritingNote(name, max)
	}
	return false
}

// WritingNote is the status note of a source applied while a process
// still had it open for writing, after waiting max.
func WritingNote(name string, max time.Duration) string {
	after := max.String()
	switch {
	case max == time.Minute:
		after = "1 minute"
	case max%time.Minute == 0:
		after = fmt.Sprintf("%d minutes", int(max/time.Minute))
	}
	return "conf.d/" + name + " was still open for writing after " + after + " (a copy that never ended?): applied as it was then; if it is not whole, copy it again"
}
