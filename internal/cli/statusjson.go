package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/nas-userscript/userscript/internal/overlay"
	"github.com/nas-userscript/userscript/internal/status"
)

// StatusJSONVersion is the version of `userscript status --json`, a
// stable interface (docs/FORMATS.md): fields may be added in a version;
// it grows only when a field changes its meaning or goes away.
const StatusJSONVersion = 1

// statusDoc is what `userscript status --json` prints.
type statusDoc struct {
	Version  int          `json:"version"`
	Profile  string       `json:"profile"`
	Stopped  string       `json:"stopped,omitempty"`
	Warnings []string     `json:"warnings,omitempty"`
	Targets  []targetJSON `json:"targets"`
}

// targetJSON is one row of the overview and what its status file says.
type targetJSON struct {
	overlay.Row
	Status string `json:"status,omitempty"`
	Reason string `json:"reason,omitempty"`
	Line   string `json:"line,omitempty"`
}

func writeStatusJSON(e *env, eng *overlay.Engine, rows []overlay.Row) error {
	doc := statusDoc{
		Version:  StatusJSONVersion,
		Profile:  eng.Profile.Name,
		Stopped:  eng.Stopped(),
		Warnings: eng.Exposure(),
		Targets:  []targetJSON{},
	}
	conf := filepath.Join(eng.App, "conf.d")
	for _, r := range rows {
		t := targetJSON{Row: r}
		if t.Sources == nil {
			t.Sources = []string{}
		}
		rep := status.ReadReport(eng.Sys, filepath.Join(conf, statusName(r)))
		t.Status, t.Reason, t.Line = string(rep.Word), rep.Reason, rep.Line
		doc.Targets = append(doc.Targets, t)
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// statusName is the name of the status file that reports on r: a
// target's or an unknown source's NAME.status; a kernel setting (named
// "KIND KEY") reports in its tuning file's (sysctl.conf → sysctl.status).
func statusName(r overlay.Row) string {
	if strings.Contains(r.Name, " ") && len(r.Sources) == 1 {
		return strings.TrimSuffix(r.Sources[0], ".conf") + ".status"
	}
	return r.Name + ".status"
}
