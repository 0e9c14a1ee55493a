package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/nas-userscript/userscript/internal/merge"
	"github.com/nas-userscript/userscript/internal/source"
)

// runExplain says, for each value in a target, which source set it.
func runExplain(ctx context.Context, e *env, args []string) error {
	fs := e.flags("explain")
	if err := e.parse(fs, args, 1, 2); err != nil {
		return err
	}
	args = fs.Args()
	eng, release, err := e.engine(ctx, true, false)
	if err != nil {
		return err
	}
	defer release()
	name := args[0]
	t, ok := eng.Profile.Target(name)
	if !ok {
		return usagef("explain: no target %q in profile %s", name, eng.Profile.Name)
	}
	format, ok := merge.FormatFor(name)
	if !ok {
		return fmt.Errorf("explain: %s is not a key = value file", name)
	}
	plan, err := eng.Plan(false)
	if err != nil {
		return err
	}
	layers := []merge.Layer{}
	var srcs []source.Source
	for _, it := range plan.Items {
		if it.Target.Name == name {
			if it.Problem != nil {
				return fmt.Errorf("%s: %w", name, it.Problem)
			}
			layers = append(layers, merge.Layer{Name: "base", Kind: merge.KindBase, Data: it.Base})
			srcs = it.Sources
		}
	}
	if len(layers) == 0 {
		// Not managed: the live file is all base.
		live, err := eng.Sys.ReadFile(eng.Sys.Root(t.Path))
		if err != nil {
			return fmt.Errorf("explain: %s: %w", t.Path, err)
		}
		layers = append(layers, merge.Layer{Name: "base", Kind: merge.KindBase, Data: live})
	}
	return printExplain(e, name, format, append(layers, sourceLayers(srcs)...), args[1:])
}

func sourceLayers(srcs []source.Source) []merge.Layer {
	var layers []merge.Layer
	for _, s := range srcs {
		kind := map[string]string{source.Replace: merge.KindReplace, source.Merge: merge.KindMerge, source.Add: merge.KindAdd}[s.Kind]
		layers = append(layers, merge.Layer{Name: s.File, Kind: kind, Data: s.Data})
	}
	return layers
}

// printExplain prints the table of origins of target, and on stderr the
// warnings of its merge (a deletion that matched nothing).
func printExplain(e *env, target, format string, layers []merge.Layer, key []string) error {
	origins, warnings, err := merge.Explain(format, layers)
	if err != nil {
		return reportEach(e, err, fmt.Sprintf("explain %s: its merge is refused", target))
	}
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "userscript: %s: warning: %s\n", target, w)
	}
	norm := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), "")) }
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LINE\tSECTION\tKEY\tVALUE\tSET BY")
	n := 0
	for _, o := range origins {
		if len(key) == 1 && norm(o.Key) != norm(key[0]) {
			continue
		}
		n++
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", o.Line, orDash(o.Section), o.Key, o.Value, o.Source)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if n == 0 && len(key) == 1 {
		return fmt.Errorf("explain: no key %q in the target", key[0])
	}
	return nil
}
