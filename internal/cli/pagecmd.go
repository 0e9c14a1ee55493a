package cli

import (
	"github.com/nas-userscript/userscript/internal/overlay"
	"github.com/nas-userscript/userscript/internal/statuspage"
)

// writePage writes conf.d/STATUS.html after an apply, a rollback or a
// start, when what it shows changed.
func (e *env) writePage(eng *overlay.Engine) {
	if err := statuspage.Write(eng.Sys, eng.App, e.lang); err != nil {
		e.log.Error("status page", "err", err)
	}
}
