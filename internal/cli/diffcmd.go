package cli

import (
	"context"
	"fmt"
	"slices"

	"github.com/pmezard/go-difflib/difflib"
)

func runDiff(ctx context.Context, e *env, args []string) error {
	fs := e.flags("diff")
	if err := e.parse(fs, args, 0, -1); err != nil {
		return err
	}
	args = fs.Args()
	eng, release, err := e.engine(ctx, true, false)
	if err != nil {
		return err
	}
	defer release()
	plan, err := eng.Plan(false)
	if err != nil {
		return err
	}
	for _, name := range args {
		if _, ok := eng.Profile.Target(name); !ok {
			return usagef("diff: no target %q in profile %s", name, eng.Profile.Name)
		}
	}
	for _, it := range plan.Items {
		if len(args) > 0 && !slices.Contains(args, it.Target.Name) {
			continue
		}
		if it.Problem != nil {
			fmt.Fprintf(e.stdout, "# %s: refused: %v\n", it.Target.Name, it.Problem)
			continue
		}
		if !it.Changed() {
			continue
		}
		text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A:        difflib.SplitLines(string(it.Live)),
			B:        difflib.SplitLines(string(it.Want)),
			FromFile: "live " + it.Target.Path,
			ToFile:   "target " + it.Target.Path,
			Context:  3,
		})
		if err != nil {
			return err
		}
		fmt.Fprint(e.stdout, text)
	}
	return nil
}
