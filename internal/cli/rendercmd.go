package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nas-userscript/userscript/internal/merge"
	"github.com/nas-userscript/userscript/internal/overlay"
	"github.com/nas-userscript/userscript/internal/profile"
	"github.com/nas-userscript/userscript/internal/source"
	"github.com/nas-userscript/userscript/internal/validate"
)

// runRender computes a target offline, on a PC, from a copy of the
// device's base file and the sources: how owners of devices that cannot
// run Go (and so cannot merge) use .merge fragments.
func runRender(ctx context.Context, e *env, args []string) error {
	flags := e.flags("render")
	prof := flags.String("profile", e.profileName, "the device's profile `NAME`")
	basePath := flags.String("base", "", "a copy of the device's own file (`FILE`); empty when the device has none")
	out := flags.String("o", "", "write the target to `FILE` instead of standard output")
	explain := flags.Bool("explain", false, "say which source set each value instead of printing the file")
	if err := e.parse(flags, args, 1, -1); err != nil {
		return err
	}
	if *prof == "" {
		return usagef("render: --profile NAME is needed (userscript profiles lists them)\n%s", usageLine("render"))
	}
	p, err := profile.Builtin(*prof)
	if err != nil {
		return usagef("%v", err)
	}
	var base []byte
	if *basePath != "" {
		if base, err = readText(*basePath); err != nil {
			return err
		}
	}
	var srcs []source.Source
	target := ""
	for _, file := range flags.Args() {
		t, kind := source.Split(filepath.Base(file))
		if target != "" && t != target {
			return usagef("render: %s is for %s, the other sources for %s: render one target at a time", file, t, target)
		}
		target = t
		data, err := readText(file)
		if err != nil {
			return err
		}
		// Named as given, so that every message names the file the owner gave.
		srcs = append(srcs, source.Source{File: file, Target: t, Kind: kind, Data: data})
	}
	tgt, ok := p.Target(target)
	if !ok {
		return usagef("render: no target %q in profile %s (userscript profiles lists them)", target, p.Name)
	}
	srcs = overlay.Ordered(srcs)
	warnings, err := checkMerge(e, target, base, srcs)
	if err != nil {
		return err
	}
	if *explain {
		format, ok := merge.FormatFor(target)
		if !ok {
			return fmt.Errorf("render --explain: %s is not a key = value file", target)
		}
		base := []merge.Layer{{Name: "base", Kind: merge.KindBase, Data: base}}
		return printExplain(e, target, format, append(base, sourceLayers(srcs)...), nil)
	}
	want, err := overlay.Compute(base, srcs)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "userscript: %s: warning: %s\n", target, w)
	}
	if tgt.Validator != "" {
		tmp, err := os.CreateTemp("", "userscript-render-*")
		if err == nil {
			tmp.Write(want)
			tmp.Close()
			v := validate.Check(ctx, tgt.Validator, tmp.Name(), validate.Options{})
			os.Remove(tmp.Name())
			switch {
			case v.Refused:
				return fmt.Errorf("render %s: %s refuses it: %s: %w", target, v.Tool, v.Reason, overlay.ErrRefused)
			case !v.Validated:
				fmt.Fprintf(e.stderr, "userscript: %s: %s\n", target, v.Reason)
			}
			for _, w := range v.Warnings {
				fmt.Fprintf(e.stderr, "userscript: %s: warning: %s\n", target, w)
			}
		}
	}
	if *out == "" {
		_, err = e.stdout.Write(want)
		return err
	}
	return os.WriteFile(*out, want, 0o644)
}

// checkMerge merges the .merge source, if any, onto what it applies to
// (the replacement, or the base), and returns its warnings. Its
// mistakes are printed one a line, each with the prefix and the
// fragment's name as given; the error only sums them up.
func checkMerge(e *env, target string, base []byte, srcs []source.Source) ([]string, error) {
	in := base
	for _, s := range srcs {
		switch s.Kind {
		case source.Replace:
			in = s.Data
		case source.Merge:
			format, ok := merge.FormatFor(target)
			if !ok {
				return nil, fmt.Errorf("render: %s: %s is not a key = value file userscript can merge into: put the whole file in %s", s.File, target, target)
			}
			_, warnings, err := merge.MergeWarn(format, in, s.Data, s.File)
			if err != nil {
				return nil, reportEach(e, err, fmt.Sprintf("render %s: %s refused: nothing rendered", target, s.File))
			}
			return warnings, nil
		}
	}
	return nil, nil
}

// reportEach prints every line of err with the userscript: prefix and
// returns summary as the error: a message of several lines would get
// the prefix on its first line only.
func reportEach(e *env, err error, summary string) error {
	for _, l := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(e.stderr, "userscript: %s\n", l)
	}
	return errors.New(summary)
}

// readText reads a file on the owner's PC as the engine reads conf.d:
// UTF-16 from Notepad converted, CRLF and BOM dropped.
func readText(name string) ([]byte, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	text, _, err := source.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return source.Normalize(text), nil
}
