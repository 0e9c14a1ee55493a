package state

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nas-userscript/userscript/internal/system"
)

// MaxLog is the size at which state/log is rotated to state/log.1.
const MaxLog = 256 << 10

// LogFile is state/log: appended to, rotated once it passes MaxLog, so it
// never holds more than about twice that on the data disk. It reaches
// the disk through the System seam.
type LogFile struct {
	mu   sync.Mutex
	sys  system.System
	path string
	// Max is the size at which it is rotated (0: MaxLog); userscript.toml's
	// log_size.
	Max int64
}

// OpenLog returns the log in stateDir. Nothing is created until the first
// line is written.
func OpenLog(sys system.System, stateDir string) *LogFile {
	return &LogFile{sys: sys, path: filepath.Join(stateDir, "log")}
}

func (l *LogFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	max := l.Max
	if max <= 0 {
		max = MaxLog
	}
	if fi, err := l.sys.Lstat(l.path); err == nil && fi.Size()+int64(len(p)) > max {
		l.sys.Rename(l.path, l.path+".1")
	}
	if err := l.sys.MkdirAll(filepath.Dir(l.path), 0o755); err != nil {
		return 0, err
	}
	err := l.sys.Append(l.path, p, 0o644)
	if errors.Is(err, syscall.ELOOP) {
		// A link planted over the share: never append through it.
		l.sys.Remove(l.path)
		err = l.sys.Append(l.path, p, 0o644)
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// LineHandler writes slog records as the log lines of docs/FORMATS.md:
// `2026-12-02T12:30:00Z INFO message key=value ...`.
type LineHandler struct {
	W     io.Writer
	Level slog.Leveler
	attrs []slog.Attr
}

func (h *LineHandler) Enabled(_ context.Context, l slog.Level) bool {
	min := slog.LevelInfo
	if h.Level != nil {
		min = h.Level.Level()
	}
	return l >= min
}

func (h *LineHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Time.UTC().Format(time.RFC3339))
	b.WriteByte(' ')
	b.WriteString(r.Level.String())
	b.WriteByte(' ')
	b.WriteString(oneLine(r.Message))
	write := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%s", a.Key, quote(a.Value.String()))
		return true
	}
	for _, a := range h.attrs {
		write(a)
	}
	r.Attrs(write)
	b.WriteByte('\n')
	_, err := io.WriteString(h.W, b.String())
	return err
}

func (h *LineHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return &c
}

func (h *LineHandler) WithGroup(string) slog.Handler { return h }

func oneLine(s string) string {
	return strings.NewReplacer("\r", "\\r", "\n", "\\n").Replace(s)
}

func quote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\r\n\"=") {
		return s
	}
	return fmt.Sprintf("%q", s)
}
