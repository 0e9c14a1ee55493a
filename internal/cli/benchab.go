package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nas-userscript/userscript/internal/bench"
	"github.com/nas-userscript/userscript/internal/system"
)

// benchAB is `bench ab`: which of two versions of a conf.d source serves
// this PC faster (docs/BENCH.md, "A/B test").
func benchAB(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("bench ab", flag.ContinueOnError)
	bf := benchFlags{runs: 1}
	fs.StringVar(&bf.size, "size", "100M", "test size: a number with M or G")
	fs.StringVar(&bf.out, "out", "", "write the results to `FILE.csv` (and FILE.json)")
	n := &bench.Net{Sys: system.NewReal(e.root), Progress: os.Stderr}
	ab := &bench.AB{Net: n, Out: e.stdout}
	fs.StringVar(&ab.ConfD, "confd", "", "the NAS's conf.d as this PC sees it: a mapped drive, \\\\NAS\\share\\...\\conf.d, a mounted `PATH`")
	fs.StringVar(&ab.Name, "name", "", "the source to test in conf.d: smb.conf, smb.conf.merge, ...")
	fs.IntVar(&ab.Rounds, "rounds", 6, "rounds (each measures A and B once; "+fmt.Sprint(bench.MinRuns)+" at least for a verdict)")
	fs.StringVar(&ab.Keep, "keep", bench.KeepOriginal, "what conf.d holds at the end: original, A, B or faster")
	fs.DurationVar(&ab.Wait, "apply-wait", 3*time.Minute, "how long to wait for the NAS to apply a variant")
	fs.DurationVar(&ab.Settle, "settle", 2*time.Second, "how long to let the service settle after an apply")
	svg := fs.String("svg", "", "also draw the comparison as an SVG chart in `FILE`")
	fs.StringVar(&n.SMB, "smb", "", "an SMB share: a mounted `PATH` (or \\\\server\\share) or smb://[USER@]HOST/SHARE[/FOLDER]")
	fs.StringVar(&n.FTP, "ftp", "", "an FTP `URL`: ftp://[USER@]HOST[:PORT][/FOLDER]")
	fs.StringVar(&n.NFS, "nfs", "", "an NFS export mounted at `PATH`")
	fs.StringVar(&n.TCP, "tcp", "", "`HOST:PORT` of userscript bench serve")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 2 || ab.ConfD == "" {
		return usagef("bench ab: want --confd PATH --name NAME A-FILE B-FILE\n%s", benchUsage)
	}
	switch ab.Keep {
	case bench.KeepOriginal, bench.KeepA, bench.KeepB, bench.KeepFaster:
	default:
		return usagef("--keep %q: want original, A, B or faster", ab.Keep)
	}
	if n.SMB == "" && n.FTP == "" && n.NFS == "" && n.TCP == "" {
		return usagef("bench ab: nothing to measure: give --smb, --ftp, --nfs or --tcp")
	}
	ab.Files = [2]string{files[0], files[1]}
	if n.Size, err = bf.check(); err != nil {
		return err
	}
	if ab.Rounds < 1 || ab.Rounds > 100 {
		return usagef("--rounds %d: want 1 to 100", ab.Rounds)
	}
	if ab.Rounds < bench.MinRuns {
		fmt.Fprintf(e.stdout, "note: %d rounds can never give a verdict: %d or more are needed\n", ab.Rounds, bench.MinRuns)
	}
	app, _ := e.appDir()
	n.Meta = bench.Meta{Device: bench.DeviceName(n.Sys), Engine: "go", Version: e.version}
	out, note, err := bench.Destination(n.Sys, app, bf.out, "ab", time.Now())
	if err != nil {
		return usagef("--out: %v", err)
	}
	if note != "" {
		fmt.Fprintf(e.stdout, "note: %s\n", note)
	}
	ab.Backup = strings.TrimSuffix(out, ".csv") + ".original"
	fmt.Fprintf(e.stdout, "A/B test of conf.d/%s: A = %s, B = %s, %d rounds (A B, B A, ...)\n", ab.Name, files[0], files[1], ab.Rounds)
	res, runErr := ab.Run(ctx)
	if res == nil || len(res.Report.Results) == 0 {
		return errors.Join(runErr, errors.New("bench ab: no results"))
	}
	return e.finishAB(n.Sys, ab, res, out, *svg, runErr)
}

// finishAB prints the comparison and saves the results and the chart.
func (e *env) finishAB(sys system.System, ab *bench.AB, res *bench.ABResult, out, svg string, runErr error) error {
	a, b := abSides(ab, res.Report.Results)
	fmt.Fprintln(e.stdout)
	if err := bench.WriteTable(e.stdout, a, b); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "\n%s\nconf.d/%s now holds: %s\n", bench.ABSummary(res.Rows), ab.Name, res.Kept)
	js, err := bench.Save(sys, out, res.Report)
	if err != nil {
		return errors.Join(runErr, err)
	}
	fmt.Fprintf(e.stdout, "results: %s\n         %s\n", out, js)
	if svg != "" {
		var s strings.Builder
		if err := bench.WriteSVG(&s, a, b); err != nil {
			return errors.Join(runErr, err)
		}
		if err := os.WriteFile(svg, []byte(s.String()), 0o644); err != nil {
			return errors.Join(runErr, err)
		}
		fmt.Fprintf(e.stdout, "chart:   %s\n", svg)
	}
	return runErr
}

func abSides(ab *bench.AB, rs []bench.Result) (a, b bench.Side) {
	a.Name, b.Name = "A "+ab.Files[0], "B "+ab.Files[1]
	for _, r := range rs {
		if r.Variant == bench.Variants[0] {
			a.Results = append(a.Results, r)
		} else {
			b.Results = append(b.Results, r)
		}
	}
	return a, b
}
