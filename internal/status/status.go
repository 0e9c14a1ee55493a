package status

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/nas-userscript/userscript/internal/system"
)

// A Word is what the status: line says; docs/FORMATS.md lists them all
// and both engines write only these.
type Word string

// The words of the status: line.
const (
	OK           Word = "OK"            // live and validated
	NotValidated Word = "NOT VALIDATED" // live, no validator ran
	Refused      Word = "REFUSED"       // not acceptable; nothing changed
	Rejected     Word = "REJECTED"      // applied, the service did not prove healthy; put back and held
	Failed       Word = "FAILED"        // could not be written, or the service could not be restarted
	Unknown      Word = "UNKNOWN"       // names no target; never applied
	Held         Word = "HELD"          // rolled back; waits for an edit
	// Disabled: conf.d/DISABLE or conf.d/SAFE-MODE is there, and nothing
	// is applied.
	Disabled Word = "DISABLED"
)

// Words are all the words, in the order docs/FORMATS.md lists them.
var Words = []Word{OK, NotValidated, Refused, Rejected, Failed, Unknown, Held, Disabled}

// A Report is the content of one status file.
type Report struct {
	Word      Word
	File      string // "conf.d/smb.conf"
	Target    string // device path
	Sources   []string
	Validated string // the validator that ran, e.g. "testparm -s"
	Reason    string
	// Line is the line a refusal is about, where it is a line of the
	// owner's own file: "conf.d/smb.conf line 3: read raw = maybe".
	Line       string
	Warnings   []string
	Notes      []string // what the validator could not check on this host
	Settings   []string // tuning: one line per kernel setting
	Diff       []string // how the firmware's own file changed, one line each
	Generation int
	Time       time.Time
	Todo       string // what the user should do next
}

// Render returns the status file's text, with CRLF line ends.
func (r *Report) Render() []byte {
	var b strings.Builder
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s: %s\r\n", k, oneLine(v))
		}
	}
	line("status", string(r.Word))
	line("file", r.File)
	line("target", r.Target)
	line("sources", strings.Join(r.Sources, " "))
	line("validated", r.Validated)
	line("reason", r.Reason)
	line("line", r.Line)
	for _, w := range r.Warnings {
		line("warning", w)
	}
	for _, n := range r.Notes {
		line("note", n)
	}
	for _, st := range r.Settings {
		line("setting", st)
	}
	for _, d := range r.Diff {
		line("diff", d)
	}
	if r.Generation > 0 {
		line("generation", fmt.Sprint(r.Generation))
	}
	line("time", r.Time.UTC().Format("2006-01-02 15:04:05 UTC"))
	if r.Todo != "" {
		fmt.Fprintf(&b, "\r\nwhat to do: %s\r\n", oneLine(r.Todo))
	}
	return []byte(b.String())
}

func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " | ", "\n", " | ", "\r", " ").Replace(strings.TrimSpace(s))
}

// Write writes r to path unless the file already says the same apart
// from the time, so an idle engine never writes to the data disk.
func Write(sys system.System, path string, r *Report) error {
	data := r.Render()
	old, err := sys.ReadFile(path)
	if err == nil && bytes.Equal(withoutTime(old), withoutTime(data)) {
		return nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		// A symlink or something odd has our name: never write through it.
		if fi, lerr := sys.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file; remove it so the status can be written", path)
		}
	}
	return sys.WriteFile(path, data, 0o644)
}

func withoutTime(data []byte) []byte {
	var out [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if !bytes.HasPrefix(l, []byte("time: ")) {
			out = append(out, l)
		}
	}
	return bytes.Join(out, []byte("\n"))
}

// Read returns the word of the status file at path, or "".
func Read(sys system.System, path string) Word {
	return ReadReport(sys, path).Word
}

// ReadReport reads back what a status file says of its validation: the
// word, the validator, the reason, the line and the warnings (an empty Report when
// there is no file).
func ReadReport(sys system.System, path string) Report {
	var r Report
	data, err := sys.ReadFile(path)
	if err != nil {
		return r
	}
	for _, l := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(l), ": ")
		switch {
		case !ok:
		case k == "status" && r.Word == "":
			r.Word = Word(v)
		case k == "validated":
			r.Validated = v
		case k == "reason":
			r.Reason = v
		case k == "line":
			r.Line = v
		case k == "warning":
			r.Warnings = append(r.Warnings, v)
		}
	}
	return r
}
