package vm

import (
	"context"
	"encoding/base64"
	"fmt"
	"sort"
	"strings"
)

// Save writes a conf.d file as the owner's save that has reached the disk
// (written, then sync): a power cut after Save returns must not lose it.
func (m *Machine) Save(ctx context.Context, path, body string) error {
	_, err := m.Run(ctx, fmt.Sprintf("echo %s | base64 -d >%s && sync", base64.StdEncoding.EncodeToString([]byte(body)), quote(path)))
	return err
}

// SaveAll writes several conf.d files (path → body) as one save of the
// owner's: one guest command and one sync, so that the engine sees them
// together rather than one poll or one watch burst after another.
func (m *Machine) SaveAll(ctx context.Context, files map[string]string) error {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var script strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&script, "echo %s | base64 -d >%s &&\n", base64.StdEncoding.EncodeToString([]byte(files[p])), quote(p))
	}
	script.WriteString("sync\n")
	_, err := m.Run(ctx, script.String())
	return err
}

// Read returns a guest file's content; ok is false when there is none.
func (m *Machine) Read(ctx context.Context, path string) (body string, ok bool, err error) {
	out, rc, err := m.Exec(ctx, "test -f "+quote(path)+" && base64 -w0 "+quote(path))
	if err != nil || rc != 0 {
		return "", false, err
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(out))
	return string(b), err == nil, err
}

// Status is the status word of a status file's text ("" without one).
func Status(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if w, ok := strings.CutPrefix(strings.TrimRight(l, "\r"), "status: "); ok {
			return w
		}
	}
	return ""
}
