package firmsim

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nas-userscript/userscript/internal/systest"
)

// An SPK is a Synology package (.spk) as Package Center reads it: a
// plain tar holding INFO, package.tgz, scripts/, conf/ and the icons.
type SPK struct {
	Path    string
	Entries []SPKEntry // in archive order
	INFO    map[string]string
}

// An SPKEntry is one member of the archive.
type SPKEntry struct {
	Header *tar.Header
	Data   []byte
}

// ReadSPK reads path as Package Center does; it fails on a compressed or
// broken archive, an entry that would leave the package folder, and an
// INFO that is missing or malformed.
func ReadSPK(path string) (*SPK, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) {
		return nil, fmt.Errorf("%s: gzip-compressed; an .spk is a plain tar", path)
	}
	s := &SPK{Path: path}
	tr := tar.NewReader(bytes.NewReader(raw))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if err := safeName(h.Name); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, h.Name, err)
		}
		s.Entries = append(s.Entries, SPKEntry{h, data})
	}
	info, ok := s.File("INFO")
	if !ok {
		return nil, fmt.Errorf("%s: no INFO", path)
	}
	if s.INFO, err = ParseINFO(info); err != nil {
		return nil, fmt.Errorf("%s: INFO: %w", path, err)
	}
	return s, nil
}

// File returns the regular file name of the archive.
func (s *SPK) File(name string) ([]byte, bool) {
	for _, e := range s.Entries {
		if strings.TrimPrefix(e.Header.Name, "./") == name && e.Header.Typeflag == tar.TypeReg {
			return e.Data, true
		}
	}
	return nil, false
}

// Extract writes the archive's members into dir.
func (s *SPK) Extract(dir string) error {
	for _, e := range s.Entries {
		p := filepath.Join(dir, filepath.Clean(e.Header.Name))
		switch e.Header.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := systest.WriteFile(p, e.Data, os.FileMode(e.Header.Mode).Perm()); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: %s is not a file or folder", s.Path, e.Header.Name)
		}
	}
	return nil
}

func safeName(name string) error {
	c := filepath.Clean(name)
	if filepath.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") {
		return fmt.Errorf("entry %q leaves the package folder", name)
	}
	return nil
}

// ParseINFO reads INFO's key="value" lines ("INFO Field Format" of
// Synology's Package Developer Guide). Blank lines are allowed; any other
// line that is not key="value", and a key given twice, is an error
// naming the line.
func ParseINFO(data []byte) (map[string]string, error) {
	info := map[string]string{}
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || !validKey(k) || len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' || strings.Contains(v[1:len(v)-1], `"`) {
			return nil, fmt.Errorf("line %d: %q is not key=\"value\"", i+1, line)
		}
		if _, dup := info[k]; dup {
			return nil, fmt.Errorf("line %d: %s is given twice", i+1, k)
		}
		info[k] = v[1 : len(v)-1]
	}
	return info, nil
}

func validKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// ParseOSVersion reads a DSM version as INFO writes it: X.Y-BUILD.
func ParseOSVersion(s string) ([3]int, error) {
	var v [3]int
	xy, build, ok := strings.Cut(s, "-")
	x, y, ok2 := strings.Cut(xy, ".")
	if !ok || !ok2 {
		return v, fmt.Errorf("DSM version %q is not X.Y-BUILD", s)
	}
	for i, part := range []string{x, y, build} {
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 {
			return v, fmt.Errorf("DSM version %q is not X.Y-BUILD", s)
		}
		v[i] = n
	}
	return v, nil
}

// ComparePkgVersions compares two package versions (numbers separated by
// . - or _, as INFO's version field allows) number by number.
func ComparePkgVersions(a, b string) (int, error) {
	na, err := versionNumbers(a)
	if err != nil {
		return 0, err
	}
	nb, err := versionNumbers(b)
	if err != nil {
		return 0, err
	}
	for i := 0; i < len(na) || i < len(nb); i++ {
		var x, y int
		if i < len(na) {
			x = na[i]
		}
		if i < len(nb) {
			y = nb[i]
		}
		if x != y {
			if x < y {
				return -1, nil
			}
			return 1, nil
		}
	}
	return 0, nil
}

func versionNumbers(v string) ([]int, error) {
	parts := strings.FieldsFunc(v, func(r rune) bool { return r == '.' || r == '-' || r == '_' })
	if len(parts) == 0 {
		return nil, fmt.Errorf("package version %q has no numbers", v)
	}
	out := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("package version %q: %q is not a number", v, p)
		}
		out[i] = n
	}
	return out, nil
}
