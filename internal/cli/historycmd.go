package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
)

func runHistory(ctx context.Context, e *env, args []string) error {
	if err := e.parse(e.flags("history"), args, 0, 0); err != nil {
		return err
	}
	eng, release, err := e.engine(ctx, true, false)
	if err != nil {
		return err
	}
	defer release()
	gens, listErr := eng.History().List()
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GEN\tTIME\tKIND\tRESULT\tCHANGED\tRESTARTED")
	for _, g := range gens {
		kind := g.Kind
		if g.Kind == "rollback" {
			kind = fmt.Sprintf("rollback to %d", g.From)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", g.ID, g.Time.UTC().Format("2006-01-02 15:04:05"), kind, g.Result,
			orDash(strings.Join(g.Changed, " ")), orDash(strings.Join(g.Restarted, " ")))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return listErr
}

func runRollback(ctx context.Context, e *env, args []string) error {
	fs := e.flags("rollback")
	if err := e.parse(fs, args, 0, 1); err != nil {
		return err
	}
	args = fs.Args()
	id := -1
	switch len(args) {
	case 0:
	case 1:
		n, err := strconv.Atoi(args[0])
		if err != nil || n < 0 {
			return usagef("rollback: %q is not a generation number; userscript history lists them", args[0])
		}
		id = n
	default:
		return usagef("usage: userscript rollback [GEN]")
	}
	eng, release, err := e.engine(ctx, false, true)
	if err != nil {
		return err
	}
	defer release()
	res, err := eng.Rollback(ctx, id)
	e.writePage(eng)
	if res != nil {
		printResult(e, res)
		if res.Generation == nil && err == nil {
			fmt.Fprintln(e.stdout, "nothing to change: the live files already are that generation")
		}
	}
	return err
}
