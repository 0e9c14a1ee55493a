package doctor

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/nas-userscript/userscript/internal/system"
)

// Render is the report as text, one line ending each line (CRLF for
// conf.d/DOCTOR.txt, "\n" for a terminal).
func (r *Report) Render(eol string) []byte {
	var b strings.Builder
	line := func(format string, args ...any) {
		b.WriteString(fmt.Sprintf(format, args...) + eol)
	}
	list := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		line("")
		line("%s", title)
		for _, it := range items {
			line("  %s", it)
		}
	}
	line("userscript doctor")
	line("checked: %s", r.Time.UTC().Format("2006-01-02 15:04:05 UTC"))
	line("engine: %s", r.Engine)
	line("app folder: %s", r.App)
	line("profile: %s", r.Profile)
	if r.Device != "" {
		line("device: %s", r.Device)
	}
	line("state: %s", r.State)
	line("disk: %s", r.Disk)
	list("targets (where the live file comes from):", r.Targets)
	list("services:", r.Services)
	line("")
	line("who can write conf.d:")
	line("  %s", r.Share)
	for _, w := range r.Warnings {
		line("  %s", w)
	}
	line("  %s", r.Root)
	list("files in conf.d that are not used:", r.Names)
	return []byte(b.String())
}

// volatile lines change at every look without anything having changed.
func volatile(l []byte) bool {
	return bytes.HasPrefix(l, []byte("checked: ")) || bytes.HasPrefix(l, []byte("disk: "))
}

// Write puts the report into path (conf.d/DOCTOR.txt) with CRLF line
// ends. Unless force is set it leaves the file alone when only the time
// and the free space changed, so an idle daemon does not write to the
// data disk.
func Write(sys system.System, path string, r *Report, force bool) error {
	data := r.Render("\r\n")
	old, err := sys.ReadFile(path)
	if !force && err == nil && bytes.Equal(steady(old), steady(data)) {
		return nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		if fi, lerr := sys.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file; remove it so the doctor's report can be written", path)
		}
	}
	return sys.WriteFile(path, data, 0o644)
}

func steady(data []byte) []byte {
	var out [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if !volatile(l) {
			out = append(out, l)
		}
	}
	return bytes.Join(out, []byte("\n"))
}
