package tuning

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nas-userscript/userscript/internal/system"
)

// Results of a setting.
const (
	Applied     = "applied"
	AlreadySet  = "already set"
	Unsupported = "unsupported"
	Failed      = "failed"
	Reverted    = "reverted"
)

// A Row is what became of one setting on one kernel file.
type Row struct {
	Setting Setting
	Path    string // device path, "" when unsupported
	Want    string
	Current string // the value now
	Result  string
	Reason  string
}

func (r Row) String() string {
	s := fmt.Sprintf("%s = %s: %s", r.Setting.Name(), r.Want, r.Result)
	if r.Path != "" && r.Result != AlreadySet {
		s += " (" + r.Path + ")"
	}
	if r.Reason != "" {
		s += ": " + r.Reason
	}
	return s
}

// A Tuner applies settings and keeps the values it replaced in
// state/tuning.json.
type Tuner struct {
	Sys      system.System
	StateDir string
}

// previous is state/tuning.json: for every kernel file we changed, the
// value it had before, and which file asked for the change.
type previous map[string]struct {
	File  string `json:"file"`
	Value string `json:"value"`
}

func (t *Tuner) prevPath() string { return filepath.Join(t.StateDir, "tuning.json") }

// Files are the conf.d names that hold tuning rather than a config file.
var Files = []string{"sysctl.conf", "tuning.conf"}

// StatusName is the name of a tuning source's status file without
// ".status": conf.d/sysctl.status for conf.d/sysctl.conf.
func StatusName(file string) string { return strings.TrimSuffix(file, ".conf") }

// Parse reads a tuning source by its file name.
func Parse(file string, data []byte) ([]Setting, []Problem) {
	if file == "sysctl.conf" {
		return ParseSysctl(data)
	}
	return ParseTuning(data)
}

// Active reports whether anything was ever changed by tuning, so an
// apply without tuning sources knows whether there is anything to put
// back.
func (t *Tuner) Active() bool {
	prev, err := t.load()
	return err != nil || len(prev) > 0
}

func (t *Tuner) load() (previous, error) {
	prev := previous{}
	data, err := t.Sys.ReadFile(t.prevPath())
	if errors.Is(err, fs.ErrNotExist) {
		return prev, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &prev); err != nil {
		return nil, fmt.Errorf("%s: %w; delete it to start afresh (the values it kept are lost)", t.prevPath(), err)
	}
	return prev, nil
}

func (t *Tuner) save(prev previous) error {
	data, _ := json.MarshalIndent(prev, "", "  ")
	if old, err := t.Sys.ReadFile(t.prevPath()); err == nil && string(old) == string(data)+"\n" {
		return nil // unchanged: no write to the data disk
	}
	if err := t.Sys.MkdirAll(t.StateDir, 0o755); err != nil {
		return err
	}
	return t.Sys.WriteFile(t.prevPath(), append(data, '\n'), 0o644)
}

// Apply writes every setting that differs from the kernel's value, reads
// it back and reports each; then puts back the original value of every
// kernel file that was changed by a setting that is gone now.
func (t *Tuner) Apply(settings []Setting) ([]Row, error) {
	prev, err := t.load()
	if err != nil {
		return nil, err
	}
	wanted := map[string]bool{}
	var rows []Row
	for _, s := range settings {
		ps, why := paths(t.Sys, s)
		if len(ps) == 0 {
			rows = append(rows, Row{Setting: s, Want: s.Value, Result: Unsupported, Reason: why})
			continue
		}
		for _, p := range ps {
			wanted[p] = true
			rows = append(rows, t.set(s, p, prev))
		}
	}
	var gone []string
	for p := range prev {
		if !wanted[p] {
			gone = append(gone, p)
		}
	}
	sort.Strings(gone)
	for _, p := range gone {
		rows = append(rows, t.revert(p, prev))
	}
	return rows, t.save(prev)
}

// Revert puts back every value tuning changed.
func (t *Tuner) Revert() ([]Row, error) {
	prev, err := t.load()
	if err != nil {
		return nil, err
	}
	var ps []string
	for p := range prev {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	var rows []Row
	for _, p := range ps {
		rows = append(rows, t.revert(p, prev))
	}
	return rows, t.save(prev)
}

// Show reports each setting's wanted and current value, writing nothing.
func (t *Tuner) Show(settings []Setting) []Row {
	var rows []Row
	for _, s := range settings {
		ps, why := paths(t.Sys, s)
		if len(ps) == 0 {
			rows = append(rows, Row{Setting: s, Want: s.Value, Result: Unsupported, Reason: why})
			continue
		}
		for _, p := range ps {
			cur, err := t.read(p)
			r := Row{Setting: s, Path: p, Want: s.Value, Current: cur, Result: "differs"}
			switch {
			case err != nil:
				r.Result, r.Reason = Failed, err.Error()
			case Same(s.Kind, cur, s.Value):
				r.Result = AlreadySet
			}
			rows = append(rows, r)
		}
	}
	return rows
}

func (t *Tuner) read(p string) (string, error) {
	data, err := t.Sys.ReadFile(t.Sys.Root(p))
	return strings.TrimSpace(string(data)), err
}

func (t *Tuner) set(s Setting, p string, prev previous) Row {
	r := Row{Setting: s, Path: p, Want: s.Value}
	cur, err := t.read(p)
	if err != nil {
		r.Result, r.Reason = Failed, "cannot read: "+kernelError(err)
		return r
	}
	r.Current = cur
	if Same(s.Kind, cur, s.Value) {
		r.Result = AlreadySet
		return r
	}
	if err := t.Sys.WriteInPlace(t.Sys.Root(p), []byte(s.Value+"\n")); err != nil {
		r.Result, r.Reason = Failed, kernelError(err)
		return r
	}
	if _, ok := prev[p]; !ok {
		prev[p] = struct {
			File  string `json:"file"`
			Value string `json:"value"`
		}{s.File, selected(cur)}
	}
	after, err := t.read(p)
	r.Current = after
	switch {
	case err != nil:
		r.Result, r.Reason = Failed, "cannot read back: "+kernelError(err)
	case !Same(s.Kind, after, s.Value):
		r.Result, r.Reason = Failed, fmt.Sprintf("the kernel kept %q", after)
	default:
		r.Result = Applied
	}
	return r
}

func (t *Tuner) revert(p string, prev previous) Row {
	old := prev[p]
	r := Row{Setting: Setting{File: old.File, Kind: "revert", Key: p}, Path: p, Want: old.Value}
	if err := checkKernelPath(p); err != nil {
		// state/ is on the share: a planted entry must not make root
		// write anywhere but the kernel's own settings.
		delete(prev, p)
		r.Result, r.Reason = Failed, err.Error() // and dropped from state/tuning.json
		return r
	}
	if err := t.Sys.WriteInPlace(t.Sys.Root(p), []byte(old.Value+"\n")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.Result, r.Reason = Failed, kernelError(err)
		return r
	}
	delete(prev, p)
	r.Result = Reverted
	r.Current, _ = t.read(p)
	return r
}

// checkKernelPath accepts only the device paths a setting can write:
// /proc/sys/..., /proc/irq/N/smp_affinity and the allowed parts of /sys.
func checkKernelPath(p string) error {
	bad := errors.New("not a kernel setting userscript writes")
	rest, ok := strings.CutPrefix(p, "/")
	if !ok || checkKey(rest) != nil || strings.ContainsAny(rest, "*?[]") {
		return bad
	}
	switch {
	case strings.HasPrefix(rest, "proc/sys/") && len(rest) > len("proc/sys/"):
		return nil
	case strings.HasPrefix(rest, "proc/irq/"):
		parts := strings.Split(rest, "/")
		if len(parts) == 4 && isNumber(parts[2]) && parts[3] == "smp_affinity" {
			return nil
		}
	case strings.HasPrefix(rest, "sys/"):
		if checkSysfs(strings.TrimPrefix(rest, "sys/")) == nil {
			return nil
		}
	}
	return bad
}

// selected is the value to put back: for a list with a [selected] entry
// (an IO scheduler), that entry.
func selected(v string) string {
	if i := strings.Index(v, "["); i >= 0 {
		if j := strings.Index(v[i:], "]"); j > 0 {
			return v[i+1 : i+j]
		}
	}
	return v
}

// kernelError is the kernel's own words for a failed write.
func kernelError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
