package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"text/tabwriter"

	"github.com/nas-userscript/userscript/internal/source"
	"github.com/nas-userscript/userscript/internal/tuning"
)

func runTune(ctx context.Context, e *env, args []string) error {
	flags := e.flags("tune")
	show := flags.Bool("show", false, "print every setting: wanted and current value")
	revert := flags.Bool("revert", false, "put back every kernel value userscript changed")
	if err := e.parse(flags, args, 0, 0); err != nil {
		return err
	}
	if *show == *revert {
		return usagef("%s", usageLine("tune"))
	}
	eng, release, err := e.engine(ctx, *show, *revert)
	if err != nil {
		return err
	}
	defer release()
	tu := eng.Tuner()
	if *revert {
		rows, err := tu.Revert()
		for _, r := range rows {
			fmt.Fprintf(e.stdout, "%s: %s %s\n", r.Path, r.Result, r.Want)
		}
		if len(rows) == 0 && err == nil {
			fmt.Fprintln(e.stdout, "nothing to put back")
		}
		return err
	}
	var settings []tuning.Setting
	for _, file := range tuning.Files {
		data, err := eng.Sys.ReadFile(filepath.Join(eng.App, "conf.d", file))
		if err != nil {
			continue
		}
		set, probs := tuning.Parse(file, source.Normalize(data))
		settings = append(settings, set...)
		for _, p := range probs {
			fmt.Fprintf(e.stderr, "userscript: %v\n", p)
		}
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SETTING\tWANTED\tCURRENT\tSTATE\tPATH")
	for _, r := range tu.Show(settings) {
		state := r.Result
		if r.Reason != "" {
			state += ": " + r.Reason
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Setting.Name(), r.Want, orDash(r.Current), state, orDash(r.Path))
	}
	return tw.Flush()
}
