package overlay

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nas-userscript/userscript/internal/profile"
	"github.com/nas-userscript/userscript/internal/source"
	"github.com/nas-userscript/userscript/internal/status"
	"github.com/nas-userscript/userscript/internal/tuning"
)

// maxUnknownStatus bounds the UNKNOWN status files one apply writes: ten
// thousand stray files must not keep the lock for minutes.
const maxUnknownStatus = 20

// writeUnknown writes an UNKNOWN status for each source that names no
// target and whose name is safe to write next to; where the name looks
// like one Windows or macOS made of a real one (smb.conf.txt, SMB.CONF),
// it says which was meant. Names that are not safe (spaces, parentheses:
// smb (2).conf) get no status file of their own; DOCTOR.txt lists them.
func (e *Engine) writeUnknown(plan *Plan) {
	written := 0
	for _, src := range plan.Unknown {
		if written == maxUnknownStatus {
			e.logger().Warn("more files name no target; no status files written for them", "count", len(plan.Unknown)-maxUnknownStatus)
			break
		}
		if profile.CheckName(src.Target) != nil {
			e.logger().Warn("ignored a file with an unusable name (see conf.d/DOCTOR.txt)", "file", src.File)
			continue
		}
		r := &status.Report{
			Word:    status.Unknown,
			File:    "conf.d/" + src.File,
			Reason:  fmt.Sprintf("conf.d/%s: no such target in profile %s", src.File, e.Profile.Name),
			Time:    e.Sys.Now(),
			Todo:    fmt.Sprintf("rename it to one of: %s; or add the target to userscript.toml", strings.Join(e.targetNames(), ", ")),
			Sources: []string{src.File},
		}
		if meant, why := source.Meant(src.File, e.KnownNames()); meant != "" {
			r.Reason += fmt.Sprintf("; did you mean %s? (%s)", meant, why)
			r.Todo = e.renameTodo(src.File, meant)
		}
		e.writeStatus(src.Target, r)
		e.logger().Warn("no such target", "file", src.File, "profile", e.Profile.Name)
		written++
	}
}

// renameTodo says what to do with a file that was meant to be called
// meant.
func (e *Engine) renameTodo(file, meant string) string {
	if e.sourceExists(meant) {
		return fmt.Sprintf("conf.d/%s exists too, and only that one is used: delete conf.d/%s, or copy what you need into %s", meant, file, meant)
	}
	return fmt.Sprintf("rename conf.d/%s to %s", file, meant)
}

func (e *Engine) sourceExists(name string) bool {
	_, err := e.Sys.Lstat(e.confDir() + "/" + name)
	return err == nil
}

// KnownNames are the names a source can be about: the profile's targets
// and the kernel tuning files.
func (e *Engine) KnownNames() []string {
	return append(e.targetNames(), tuning.Files...)
}

// sweepStatuses removes the status files nobody needs any more: an
// UNKNOWN status whose file is gone, and any status of a reserved name
// (an older version wrote DISABLE.status). A target's status stays, even
// when its sources are gone (it says the firmware's file is back).
func (e *Engine) sweepStatuses(plan *Plan) {
	entries, err := e.Sys.ReadDir(e.confDir())
	if err != nil {
		return
	}
	present := map[string]bool{}
	for _, src := range plan.Unknown {
		present[src.Target] = true
	}
	for _, ent := range entries {
		name, ok := strings.CutSuffix(ent.Name(), ".status")
		if !ok || !ent.Type().IsRegular() {
			continue
		}
		if _, target := e.Profile.Target(name); target || slices.Contains(tuning.Files, name+".conf") {
			continue
		}
		if !source.Reserved(name) && (present[name] || status.Read(e.Sys, e.statusPath(name)) != status.Unknown) {
			continue
		}
		if err := e.Sys.Remove(e.statusPath(name)); err == nil {
			e.logger().Info("removed the status of a file that is gone", "status", ent.Name())
		}
	}
}
