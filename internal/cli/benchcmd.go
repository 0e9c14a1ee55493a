package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/nas-userscript/userscript/internal/bench"
	"github.com/nas-userscript/userscript/internal/system"
)

const benchUsage = `usage:
  userscript bench run [--dir DIR] [--dir2 DIR] [--usb DIR] [--size SIZE] [--runs N] [--name NAME] [--out FILE.csv] [TEST...]
  userscript bench net [--smb PATH|URL] [--ftp URL] [--nfs PATH] [--tcp HOST:PORT] [--size SIZE] [--runs N] [--name NAME] [--out FILE.csv]
  userscript bench serve [--listen ADDR:PORT]
  userscript bench compare A.csv B.csv [--svg FILE] [--md]
  userscript bench ab --confd PATH --name NAME A-FILE B-FILE [--smb PATH|URL | --ftp URL | --nfs PATH | --tcp HOST:PORT] [--rounds N] [--size SIZE] [--keep original|A|B|faster] [--out FILE.csv] [--svg FILE]
  userscript bench align
TEST: ` + "ZeroNull UrandomNull S1 L1Null L2DD L3hdparm S3 USB1 USBWriteOnly1 USBReadOnly1 S2" + `; SIZE: a number with M or G (default 1000M)
see docs/BENCH.md`

func runBench(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return usagef("%s", benchUsage)
	}
	if args[0] == "-h" || args[0] == "--help" {
		e.commandHelp(e.flags("bench"))
		fmt.Fprintf(e.stdout, "\n%s\n", benchUsage)
		return errHelp
	}
	sub := map[string]func(context.Context, *env, []string) error{
		"run": benchRun, "net": benchNet, "serve": benchServe, "compare": benchCompare, "align": benchAlign, "ab": benchAB,
	}[args[0]]
	if sub == nil {
		return usagef("bench: unknown %q\n%s", args[0], benchUsage)
	}
	return sub(ctx, e, args[1:])
}

// benchFlags are the flags run and net share.
type benchFlags struct {
	size, name, out string
	runs            int
}

func (b *benchFlags) add(fs *flag.FlagSet, name string) {
	fs.StringVar(&b.size, "size", "1000M", "test size: a number with M or G")
	fs.IntVar(&b.runs, "runs", 3, "runs of every test (median and spread)")
	fs.StringVar(&b.name, "name", name, "name in the results file: DATE-NAME.csv")
	fs.StringVar(&b.out, "out", "", "write the results to `FILE.csv` (and FILE.json)")
}

// parse parses flags given before, between or after the arguments.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(new(strings.Builder))
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usagef("%v\n%s", err, benchUsage)
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos, args = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
}

func (b *benchFlags) check() (int64, error) {
	size, err := bench.ParseSize(b.size)
	if err != nil {
		return 0, usagef("--size: %v", err)
	}
	if b.runs < 1 || b.runs > 100 {
		return 0, usagef("--runs %d: want 1 to 100", b.runs)
	}
	return size, nil
}

func benchRun(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("bench run", flag.ContinueOnError)
	var bf benchFlags
	bf.add(fs, "run")
	l := &bench.Local{Sys: system.NewReal(e.root), Out: e.stdout}
	fs.StringVar(&l.Dir, "dir", "", "a folder on the disk to test (default: the app dir's disk)")
	fs.StringVar(&l.Dir2, "dir2", "", "a folder on a second disk, for S3 (default: found in /proc/mounts)")
	fs.StringVar(&l.USB, "usb", "", "a folder on a USB disk, for the USB tests (default: found)")
	tests, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if l.Size, err = bf.check(); err != nil {
		return err
	}
	l.Runs, l.Tests = bf.runs, tests
	app, _ := e.appDir()
	if l.Dir == "" {
		var ok bool
		if l.Dir, ok = bench.DevicePath(l.Sys, app); !ok {
			return usagef("bench run: the app dir %s is not under the root %s: pass --dir DIR", app, l.Sys.Root("/"))
		}
	}
	l.Meta = bench.Meta{Device: bench.DeviceName(l.Sys), Engine: "go", Version: e.version, Generation: bench.LiveGeneration(l.Sys, app)}
	rep, err := l.Run(ctx)
	return e.finishBench(l.Sys, app, bf, rep, err)
}

func benchNet(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("bench net", flag.ContinueOnError)
	var bf benchFlags
	bf.add(fs, "net")
	n := &bench.Net{Sys: system.NewReal(e.root), Out: e.stdout, Progress: os.Stderr}
	fs.StringVar(&n.SMB, "smb", "", "an SMB share: a mounted `PATH` (or \\\\server\\share) or smb://[USER@]HOST/SHARE[/FOLDER]")
	fs.StringVar(&n.FTP, "ftp", "", "an FTP `URL`: ftp://[USER@]HOST[:PORT][/FOLDER]")
	fs.StringVar(&n.NFS, "nfs", "", "an NFS export mounted at `PATH`")
	fs.StringVar(&n.TCP, "tcp", "", "`HOST:PORT` of userscript bench serve")
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("bench net: unexpected %q\n%s", rest[0], benchUsage)
	}
	if n.Size, err = bf.check(); err != nil {
		return err
	}
	n.Runs = bf.runs
	app, _ := e.appDir()
	n.Meta = bench.Meta{Device: bench.DeviceName(n.Sys), Engine: "go", Version: e.version, Generation: bench.LiveGeneration(n.Sys, app)}
	rep, err := n.Run(ctx)
	return e.finishBench(n.Sys, app, bf, rep, err)
}

// finishBench saves what ran and prints the summary; an interrupted or
// failed start saves nothing.
func (e *env) finishBench(sys system.System, app string, bf benchFlags, rep *bench.Report, runErr error) error {
	if rep == nil || len(rep.Results) == 0 {
		return errors.Join(runErr, errors.New("bench: no results"))
	}
	out, note, err := bench.Destination(sys, app, bf.out, bf.name, rep.Results[0].Time)
	if err != nil {
		return usagef("--name: %v", err)
	}
	if note != "" {
		fmt.Fprintf(e.stdout, "note: %s\n", note)
	}
	fmt.Fprintln(e.stdout)
	if err := bench.WriteSummary(e.stdout, rep.Results); err != nil {
		return err
	}
	js, err := bench.Save(sys, out, rep)
	if err != nil {
		return errors.Join(runErr, err)
	}
	fmt.Fprintf(e.stdout, "\nresults: %s\n         %s\n", out, js)
	return runErr
}

func benchServe(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("bench serve", flag.ContinueOnError)
	listen := fs.String("listen", ":"+bench.DefaultPort, "listen on `ADDR:PORT`")
	if rest, err := parseInterleaved(fs, args); err != nil || len(rest) > 0 {
		return usagef("%s", benchUsage)
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("bench serve: %w", err)
	}
	fmt.Fprintf(e.stdout, "userscript bench serve: listening on %s; on the PC: userscript bench net --tcp THIS-NAS:%d; Ctrl-C ends\n", l.Addr(), l.Addr().(*net.TCPAddr).Port)
	return bench.Serve(ctx, l, e.stdout)
}

func benchCompare(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("bench compare", flag.ContinueOnError)
	svg := fs.String("svg", "", "also draw the comparison as an SVG bar chart in `FILE`")
	md := fs.Bool("md", false, "print a Markdown table (for a wiki) instead of text")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 2 {
		return usagef("usage: userscript bench compare A.csv B.csv [--svg FILE] [--md]")
	}
	var sides [2]bench.Side
	for i, f := range files {
		if sides[i], err = bench.LoadSide(f); err != nil {
			return err
		}
	}
	write := bench.WriteTable
	if *md {
		write = bench.WriteMarkdown
	}
	if err := write(e.stdout, sides[0], sides[1]); err != nil {
		return err
	}
	if *svg == "" {
		return nil
	}
	var b strings.Builder
	if err := bench.WriteSVG(&b, sides[0], sides[1]); err != nil {
		return err
	}
	return os.WriteFile(*svg, []byte(b.String()), 0o644)
}

func benchAlign(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 {
		return usagef("usage: userscript bench align")
	}
	parts, err := bench.Alignment(system.NewReal(e.root))
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		fmt.Fprintln(e.stdout, "no partitions found in /sys/block")
	}
	for _, p := range parts {
		fmt.Fprintf(e.stdout, "%s: %s\n", p.Name, p.Advice)
	}
	return nil
}
