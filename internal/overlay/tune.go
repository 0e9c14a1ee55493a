package overlay

import (
	"fmt"

	"github.com/nas-userscript/userscript/internal/source"
	"github.com/nas-userscript/userscript/internal/status"
	"github.com/nas-userscript/userscript/internal/tuning"
)

// Tuner is the engine's kernel tuner.
func (e *Engine) Tuner() *tuning.Tuner {
	return &tuning.Tuner{Sys: e.Sys, StateDir: e.stateDir()}
}

// tune applies conf.d/sysctl.conf and conf.d/tuning.conf, puts back what
// a removed setting had changed, and writes their status files. It runs
// before the services restart, so they start with the new kernel values.
func (e *Engine) tune(srcs []source.Source) {
	tu := e.Tuner()
	if len(srcs) == 0 && !tu.Active() {
		return
	}
	var settings []tuning.Setting
	reports := map[string]*status.Report{}
	for _, src := range srcs {
		if src.Kind != source.Replace {
			e.writeStatus(tuning.StatusName(src.Target), &status.Report{Word: status.Refused, File: "conf.d/" + src.File, Time: e.Sys.Now(),
				Reason: fmt.Sprintf("conf.d/%s: %s takes the whole file, not .add or .merge", src.File, src.Target)})
			continue
		}
		r := &status.Report{Word: status.OK, File: "conf.d/" + src.File, Sources: []string{src.File}, Time: e.Sys.Now()}
		if src.Encoding != "" {
			r.Notes = append(r.Notes, source.EncodingNote(src.File, src.Encoding))
		}
		reports[src.File] = r
		if src.Err != nil {
			r.Word, r.Reason = status.Refused, src.Err.Error()
			continue
		}
		set, probs := tuning.Parse(src.File, src.Data)
		settings = append(settings, set...)
		for _, p := range probs {
			r.Word = status.Failed
			r.Warnings = append(r.Warnings, p.Error())
		}
	}
	rows, err := tu.Apply(settings)
	if err != nil {
		e.logger().Error("tuning", "err", err)
		return
	}
	for _, row := range rows {
		e.logger().Info("tuning", "setting", row.String())
		r := reports[row.Setting.File]
		if r == nil {
			continue // a revert of a file that is gone
		}
		r.Settings = append(r.Settings, row.String())
		if row.Result == tuning.Failed {
			r.Word = status.Failed
		}
	}
	for file, r := range reports {
		if r.Word == status.Failed {
			r.Reason = "some settings could not be applied; the others were"
			r.Todo = "fix or remove the lines marked failed; the kernel's own error is given"
		}
		e.writeStatus(tuning.StatusName(file), r)
	}
}
