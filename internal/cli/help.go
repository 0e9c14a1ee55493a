package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// errHelp ends a command that printed its help (exit 0).
var errHelp = errors.New("help shown")

// flags is a command's flag set. Every command parses its arguments with
// parse, so each answers -h and --help alike.
func (e *env) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parse parses a command's arguments and checks that it got between min
// and max of them (max < 0: any number). -h and --help print the
// command's help to stdout and return errHelp.
func (e *env) parse(fs *flag.FlagSet, args []string, min, max int) error {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		e.commandHelp(fs)
		return errHelp
	case err != nil:
		return usagef("%v\n%s", err, usageLine(fs.Name()))
	case fs.NArg() < min || max >= 0 && fs.NArg() > max:
		return usagef("%s", usageLine(fs.Name()))
	}
	return nil
}

func lookup(name string) command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return command{name: name}
}

func usageLine(name string) string {
	c := lookup(name)
	return strings.TrimSpace(fmt.Sprintf("usage: userscript %s %s", c.name, c.args)) + " (userscript " + c.name + " -h tells more)"
}

// commandHelp prints what a command does, its arguments and its flags.
func (e *env) commandHelp(fs *flag.FlagSet) {
	c := lookup(fs.Name())
	fmt.Fprintf(e.stdout, "usage: userscript [global flags] %s %s\n\n%s\n", c.name, c.args, c.help)
	if c.more != "" {
		fmt.Fprintf(e.stdout, "\n%s\n", c.more)
	}
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintf(e.stdout, "\nflags:\n")
		fs.SetOutput(e.stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	fmt.Fprintf(e.stdout, "\nuserscript -h lists the global flags and every command.\n")
}
