package source

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/nas-userscript/userscript/internal/system"
)

// Kinds of source.
const (
	Replace = "replace" // conf.d/NAME
	Add     = "add"     // conf.d/NAME.add
	Merge   = "merge"   // conf.d/NAME.merge
)

// A Source is one file in conf.d that names a target.
type Source struct {
	File   string // file name in conf.d, e.g. "smb.conf.add"
	Target string // target name, e.g. "smb.conf"
	Kind   string
	Data   []byte // normalised; nil when Err is set
	Err    error  // why the file cannot be used
	// Encoding names what the file was converted from ("UTF-16 LE"),
	// or "" when it was UTF-8 (or ASCII) already.
	Encoding string
}

// A Set is every source in conf.d, grouped by target name.
type Set struct {
	ByTarget map[string][]Source
}

// Targets returns the target names with at least one source, sorted.
func (s *Set) Targets() []string {
	names := make([]string, 0, len(s.ByTarget))
	for n := range s.ByTarget {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Ignored reports whether a file in conf.d is not a source at all:
// hidden files, editor droppings, what Windows Explorer and macOS Finder
// leave behind (Thumbs.db, desktop.ini, .DS_Store, ._*), the owner's
// backups (smb.conf.bak), our own status files, documentation, and the
// reserved names (see Reserved).
func Ignored(name string) bool {
	lower := strings.ToLower(name)
	switch {
	case systemDropping(name), Reserved(name), Backup(name):
		return true
	case name == "" || strings.HasPrefix(name, "."),
		strings.HasPrefix(name, "~$"),
		strings.HasSuffix(name, "~"),
		strings.HasSuffix(lower, ".tmp"),
		strings.HasSuffix(lower, ".swp"),
		strings.HasSuffix(lower, ".swx"),
		strings.HasSuffix(name, ".status"),
		strings.HasPrefix(name, "README"),
		name == "examples":
		return true
	}
	return false
}

// Split returns the target name and kind a conf.d file name stands for.
func Split(name string) (target, kind string) {
	switch {
	case strings.HasSuffix(name, ".add"):
		return strings.TrimSuffix(name, ".add"), Add
	case strings.HasSuffix(name, ".merge"):
		return strings.TrimSuffix(name, ".merge"), Merge
	}
	return name, Replace
}

// Scan reads the sources in dir whose target wanted accepts; the others
// are listed with no data (a photo dropped into conf.d is never read).
// A missing dir is an empty set. Files that cannot be used are returned
// with Err set, so they can be reported.
func Scan(sys system.System, dir string, wanted func(target string) bool) (*Set, error) {
	set := &Set{ByTarget: map[string][]Source{}}
	entries, err := sys.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return set, nil
		}
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	for _, e := range entries {
		name := e.Name()
		if Ignored(name) {
			continue
		}
		target, kind := Split(name)
		src := Source{File: name, Target: target, Kind: kind}
		if wanted(target) {
			src.Data, src.Encoding, src.Err = read(sys, dir+"/"+name, e.Type(), kind != Replace)
		}
		set.ByTarget[target] = append(set.ByTarget[target], src)
	}
	return set, nil
}

// ErrEmptyPart is why an empty (0 bytes) .merge or .add is not applied.
var ErrEmptyPart = errors.New("is empty (0 bytes): a save in progress or a copy that failed leaves such a file, so it is not applied; to drop these changes, delete it")

// read reads a source; part is true for a .merge or .add, which may not
// be empty: a replacement may (never_empty says for which targets not).
func read(sys system.System, path string, typ fs.FileMode, part bool) ([]byte, string, error) {
	switch {
	case typ&fs.ModeSymlink != 0:
		return nil, "", fmt.Errorf("is a symlink; userscript never follows links in conf.d: replace it with a copy of the file")
	case typ.IsDir():
		return nil, "", fmt.Errorf("is a folder, not a file")
	case !typ.IsRegular():
		return nil, "", fmt.Errorf("is not a regular file (%s)", typ.Type())
	}
	if fi, err := sys.Lstat(path); err == nil {
		if system.Links(fi) > 1 {
			// A hard link can be another file (a secret root may read)
			// under a name in conf.d.
			return nil, "", fmt.Errorf("has other hard links; userscript does not read files that are also elsewhere: save it as a plain copy")
		}
	}
	data, err := sys.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, "", pe.Err // the path is the user's own file name
		}
		return nil, "", err
	}
	if part && len(data) == 0 {
		return nil, "", ErrEmptyPart
	}
	text, enc, err := Decode(data)
	if err != nil {
		return nil, enc, err
	}
	return Normalize(text), enc, nil
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// Normalize drops leading UTF-8 BOMs and the carriage returns at the end
// of every line (CRLF, CRCRLF, a CR before the end of the text), and makes
// non-empty text end with a newline.
func Normalize(data []byte) []byte {
	for bytes.HasPrefix(data, bom) {
		data = data[len(bom):]
	}
	out := make([]byte, 0, len(data)+1)
	for len(data) > 0 {
		line, rest, found := bytes.Cut(data, []byte("\n"))
		out = append(out, bytes.TrimRight(line, "\r")...)
		if found || len(bytes.TrimRight(line, "\r")) > 0 {
			out = append(out, '\n')
		}
		data = rest
	}
	return out
}

// Concat appends add to base, with a newline between them when base does
// not end with one.
func Concat(base, add []byte) []byte {
	out := make([]byte, 0, len(base)+len(add)+1)
	out = append(out, base...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return append(out, add...)
}
