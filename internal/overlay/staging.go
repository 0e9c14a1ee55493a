package overlay

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// stagePrefix starts the name of every private scratch folder a
// validation stages its candidate in: userscript-stage-PID-RANDOM in the
// temporary folder. The PID says whose it is.
const stagePrefix = "userscript-stage-"

// stageDir makes this process's scratch folder for one validation.
func (e *Engine) stageDir() (string, error) {
	return e.Sys.MkdirTemp(fmt.Sprintf("%s%d-", stagePrefix, os.Getpid()))
}

// sweepStaging removes the scratch folders that a process which is gone
// left behind (killed while a validator ran): an engine that ends
// normally removes its own. Folders of live processes are left alone.
func (e *Engine) sweepStaging() {
	tmp := os.TempDir()
	entries, err := e.Sys.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, ent := range entries {
		rest, ok := strings.CutPrefix(ent.Name(), stagePrefix)
		if !ok || !ent.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || e.Sys.Alive(pid) {
			continue
		}
		if err := e.Sys.RemoveAll(filepath.Join(tmp, ent.Name())); err == nil {
			e.logger().Info("removed a scratch folder left by a process that is gone", "dir", ent.Name())
		}
	}
}

// sweepTornTargets removes what writes of targets killed half-way (a
// power cut, SIGKILL during a rollback) left beside them: the hidden
// staging files .BASE.userscript-* (either engine's). A write of a target
// removes its own; this catches the targets nothing has written since.
// Only under the apply lock: no other write is under way.
func (e *Engine) sweepTornTargets() {
	prefixes := map[string][]string{} // folder → ".BASE.userscript-" of its targets
	for _, t := range e.Profile.Targets {
		live := e.Sys.Root(t.Path)
		dir := filepath.Dir(live)
		prefixes[dir] = append(prefixes[dir], "."+filepath.Base(live)+".userscript-")
	}
	for dir, ps := range prefixes {
		entries, _ := e.Sys.ReadDir(dir)
		for _, ent := range entries {
			torn := slices.ContainsFunc(ps, func(p string) bool { return strings.HasPrefix(ent.Name(), p) })
			if torn && ent.Type().IsRegular() {
				e.Sys.Remove(filepath.Join(dir, ent.Name()))
			}
		}
	}
}
