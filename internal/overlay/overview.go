package overlay

import (
	"fmt"
	"slices"

	"github.com/nas-userscript/userscript/internal/source"
	"github.com/nas-userscript/userscript/internal/tuning"

	"github.com/nas-userscript/userscript/internal/state"
	"github.com/nas-userscript/userscript/internal/status"
)

// States a target can be in.
const (
	InSync     = "in sync"     // live is the target
	NotApplied = "not applied" // the sources changed and are not applied yet
	Drifted    = "drifted"     // something else rewrote the live file
	Refused    = "refused"     // the sources cannot be applied
	Held       = "held"        // rolled back; waits for an edit
	Unknown    = "unknown"     // a source names no target
	Unused     = "no source"   // a target of the profile nobody configured
)

// A Row describes one target for `userscript status`.
type Row struct {
	Name       string   `json:"name"`
	Path       string   `json:"path"`
	Sources    []string `json:"sources"`
	State      string   `json:"state"`
	Detail     string   `json:"detail,omitempty"`
	Generation int      `json:"generation,omitempty"`
	Service    string   `json:"service,omitempty"`
}

// Overview describes every target of the profile and every source that
// names none, for `userscript status`. It writes nothing.
func (e *Engine) Overview() ([]Row, error) {
	plan, err := e.Plan(false)
	if err != nil {
		return nil, err
	}
	gens, _ := e.history().List()
	lastGen := func(name string) int {
		for i := len(gens) - 1; i >= 0; i-- {
			if slices.Contains(gens[i].Changed, name) {
				return gens[i].ID
			}
		}
		return 0
	}
	st := e.state()
	var rows []Row
	for _, t := range e.Profile.Targets {
		row := Row{Name: t.Name, Path: t.Path, State: Unused, Service: t.Service}
		i := slices.IndexFunc(plan.Items, func(it *Item) bool { return it.Target.Name == t.Name })
		if i >= 0 {
			it := plan.Items[i]
			row.Sources = it.SourceFiles()
			row.Generation = lastGen(t.Name)
			written, _ := st.Written(t.Name)
			switch {
			case it.Problem != nil:
				row.State, row.Detail = Refused, it.Problem.Error()
			case it.Held:
				row.State = Held
			case !it.Changed():
				row.State = InSync
			case written != "" && it.LiveOK && written != state.Hash(it.Live):
				row.State, row.Detail = Drifted, "the live file was rewritten by something else"
			default:
				row.State = NotApplied
			}
			if w := status.Read(e.Sys, e.statusPath(t.Name)); w == status.Refused && row.State == NotApplied {
				row.State, row.Detail = Refused, "see conf.d/"+t.Name+".status"
			}
		}
		rows = append(rows, row)
	}
	rows = append(rows, e.tuningRows(plan)...)
	for _, src := range plan.Unknown {
		rows = append(rows, Row{Name: src.Target, Sources: []string{src.File}, State: Unknown,
			Detail: "no such target in profile " + e.Profile.Name})
	}
	return rows, nil
}

// tuningRows describes every kernel setting of conf.d/sysctl.conf and
// conf.d/tuning.conf: in sync when the kernel has the wanted value.
func (e *Engine) tuningRows(plan *Plan) []Row {
	var settings []tuning.Setting
	for _, src := range plan.Tuning {
		if src.Err == nil && src.Kind == source.Replace {
			set, _ := tuning.Parse(src.File, src.Data)
			settings = append(settings, set...)
		}
	}
	var rows []Row
	for _, r := range e.Tuner().Show(settings) {
		row := Row{Name: r.Setting.Name(), Path: r.Path, Sources: []string{r.Setting.File}, State: NotApplied, Detail: "kernel has " + r.Current}
		switch r.Result {
		case tuning.AlreadySet:
			row.State, row.Detail = InSync, ""
		case tuning.Unsupported:
			row.State, row.Detail = "unsupported", r.Reason
		case tuning.Failed:
			row.State, row.Detail = Refused, r.Reason
		}
		rows = append(rows, row)
	}
	return rows
}

// Exposure warns about app folders anyone may write: conf.d decides what
// root runs (smb.conf alone can run commands as root), so it must be
// writable only by the owner's account.
func (e *Engine) Exposure() []string {
	var warns []string
	for _, dir := range []string{e.App, e.confDir(), e.stateDir()} {
		fi, err := e.Sys.Lstat(dir)
		if err != nil {
			continue
		}
		if fi.Mode().Perm()&0o002 != 0 {
			warns = append(warns, fmt.Sprintf("%s is writable by everyone (mode %v): anyone on the network can change what runs as root here; let only your own account write it (chmod o-w, and restrict the share in the web GUI)", dir, fi.Mode().Perm()))
		}
	}
	return warns
}
