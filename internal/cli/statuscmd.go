package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/nas-userscript/userscript/internal/profile"
)

func runStatus(ctx context.Context, e *env, args []string) error {
	fs := e.flags("status")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := e.parse(fs, args, 0, 0); err != nil {
		return err
	}
	eng, release, err := e.engine(ctx, true, false)
	if err != nil {
		return err
	}
	defer release()
	rows, err := eng.Overview()
	if err != nil {
		return err
	}
	if why := eng.Stopped(); why != "" {
		fmt.Fprintf(e.stderr, "userscript: warning: nothing is applied: %s\n", why)
	}
	for _, w := range eng.Exposure() {
		fmt.Fprintf(e.stderr, "userscript: warning: %s\n", w)
	}
	if *asJSON {
		return writeStatusJSON(e, eng, rows)
	}
	if eng.Profile.Name == "dsm" {
		// The DSM version decides the dsm profile's paths: say which.
		if v, ok, err := profile.DetectDSM(eng.Sys); err == nil && ok {
			fmt.Fprintf(e.stdout, "Synology DSM %s (%s)\n", v, profile.DSMVersionFile)
		}
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TARGET\tSOURCES\tSTATE\tGEN\tPATH")
	for _, r := range rows {
		gen := "-"
		if r.Generation > 0 {
			gen = fmt.Sprint(r.Generation)
		}
		st := r.State
		if r.Detail != "" {
			st += " (" + r.Detail + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, orDash(strings.Join(r.Sources, " ")), st, gen, r.Path)
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
