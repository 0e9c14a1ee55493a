package cli

import (
	"context"
	"path/filepath"

	"github.com/nas-userscript/userscript/internal/doctor"
	"github.com/nas-userscript/userscript/internal/overlay"
	"github.com/nas-userscript/userscript/internal/source"
)

func runDoctor(ctx context.Context, e *env, args []string) error {
	fs := e.flags("doctor")
	write := fs.Bool("write", false, "also write the report to conf.d/DOCTOR.txt")
	if err := e.parse(fs, args, 0, 0); err != nil {
		return err
	}
	eng, release, err := e.engine(ctx, !*write, false)
	if err != nil {
		return err
	}
	defer release()
	r := doctor.Check(ctx, eng, e.doctorInfo())
	if _, err := e.stdout.Write(r.Render("\n")); err != nil {
		return err
	}
	if *write {
		return doctor.Write(eng.Sys, doctorPath(eng), r, true)
	}
	return nil
}

func (e *env) doctorInfo() doctor.Info {
	return doctor.Info{Version: e.version, ProfileFrom: e.profileFrom}
}

func doctorPath(eng *overlay.Engine) string {
	return filepath.Join(eng.App, "conf.d", source.DoctorFile)
}

// writeDoctor writes conf.d/DOCTOR.txt after an apply: always at a start
// (force), else only when more than the time and the free space changed.
func (e *env) writeDoctor(ctx context.Context, eng *overlay.Engine, force bool) {
	if err := doctor.Write(eng.Sys, doctorPath(eng), doctor.Check(ctx, eng, e.doctorInfo()), force); err != nil {
		e.log.Error("doctor", "err", err)
	}
}
