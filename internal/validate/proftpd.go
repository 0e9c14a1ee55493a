package validate

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// runDirs are where proftpd -t, run as root, leaves proftpd.delay (the
// DelayTable) and proftpd.sock (the ControlsSocket).
var runDirs = []string{"/run", "/var/run"}

var (
	// 2026-12-02 12:31:01,183 vm proftpd[5628]: fatal: ...
	// 2026-12-02 12:31:39,468 vm proftpd[6017] localhost: error: ...
	reProftpdPrefix = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ \S+ proftpd\[\d+\](?: [^:]*)?: `)
	reOnLine        = regexp.MustCompile(`^(.*) on line (\d+) of '(.*)'$`)
	reRunArtefact   = regexp.MustCompile(`unable to bind to local socket|error opening DelayTable`)
)

// checkProftpd runs proftpd -t -c PATH (-c wants an absolute path). As
// root it would create /run/proftpd.delay and /run/proftpd.sock, so it
// runs with a throw-away tmpfs over /run that holds the directories (not
// the files) of the real one. Where no private namespace can be made, it
// runs as is and its new files are removed, but only when no proftpd file
// is there yet: one that is there may be a running proftpd's, and proftpd
// -t would overwrite it.
func checkProftpd(ctx context.Context, path string, opt Options) Result {
	const tool = "proftpd -t"
	data, bad := readCandidate(opt, tool, path)
	if bad != nil {
		return *bad
	}
	prog, ok := opt.find("proftpd")
	if !ok {
		return notFound(tool, "proftpd")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return Result{Tool: tool, Refused: true, Reason: fmt.Sprintf("%s: %v", path, err)}
	}
	argv := []string{prog, "-t", "-c", abs}
	var out output
	var notes []string
	err = errNoNamespace(opt)
	if err == nil {
		err = isolated(func() error { return shadowRunDirs(abs, data) }, func() { out = run(ctx, opt, abs, argv) })
	}
	if err != nil {
		before := proftpdFiles(runDirs)
		if len(before) > 0 && os.Geteuid() == 0 {
			return Result{Tool: tool, Reason: fmt.Sprintf("not validated: no private /run for proftpd -t (%v), and it would overwrite %s", err, before[0])}
		}
		out = run(ctx, opt, abs, argv)
		notes = append(notes, fmt.Sprintf("proftpd -t ran without a private /run (%v)", err))
		for _, p := range removeNewFiles(runDirs, before) {
			notes = append(notes, "removed "+p+" left by proftpd -t")
		}
	}
	if out.TimedOut {
		return timedOut(tool, out, opt.timeout())
	}
	r := Result{Tool: tool, Execs: []Exec{out.Exec}, Notes: notes}
	if out.Err != nil {
		r.Reason = "not validated: " + out.Err.Error()
		return r
	}
	o := readProftpd(out.stderr, abs)
	r.Notes = append(r.Notes, o.notes...)
	for _, w := range o.warnings {
		r.Warnings = append(r.Warnings, atLine(directiveLine(data, w), w))
	}
	r.Validated = true
	if out.ExitCode == 0 {
		return r
	}
	r.Refused = true
	switch {
	case o.fatal != "" && o.fatalLine > 0:
		r.Reason = atLine(o.fatalLine, o.fatal)
	case strings.Contains(o.fatal, "unclosed configuration section"):
		line, text := unclosedSection(data)
		r.Reason = atLine(line, "unclosed configuration section "+text)
	case o.fatal != "":
		r.Reason = atLine(directiveLine(data, o.fatal), o.fatal)
	case len(o.other) > 0:
		msg := o.other[len(o.other)-1]
		r.Reason = atLine(directiveLine(data, msg), msg)
	default:
		r.Reason = fmt.Sprintf("proftpd -t exited %d", out.ExitCode)
	}
	if len(o.suggest) > 0 {
		r.Reason += " (did you mean " + strings.Join(o.suggest, ", ") + "?)"
	}
	return r
}

func errNoNamespace(opt Options) error {
	if opt.noNamespace {
		return &nsError{"unshare", os.ErrPermission}
	}
	return nil
}

// shadowRunDirs puts a throw-away tmpfs over each of runDirs; a candidate
// that was staged under one of them is written again into the tmpfs.
func shadowRunDirs(candidate string, data []byte) error {
	for _, d := range runDirs {
		if err := shadowDir(d); err != nil {
			return err
		}
	}
	if _, err := os.Stat(candidate); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(candidate), 0o700); err != nil {
		return &nsError{"keep the candidate in the private /run", err}
	}
	if err := os.WriteFile(candidate, data, 0o600); err != nil {
		return &nsError{"keep the candidate in the private /run", err}
	}
	return nil
}

// proftpdOutput is proftpd -t's stderr, sorted.
type proftpdOutput struct {
	fatal     string   // the first fatal message, without "on line N of FILE"
	fatalLine int      // N, or 0 (also when N is a line of an included file)
	suggest   []string // directives proftpd suggests after "Did you mean:"
	warnings  []string
	notes     []string // about this host: the DelayTable or socket it could not write
	other     []string // messages that are neither fatal nor warnings
}

func readProftpd(stderr []byte, candidate string) proftpdOutput {
	var o proftpdOutput
	suggesting := false
	sc := bufio.NewScanner(bytes.NewReader(stderr))
	for sc.Scan() {
		raw := sc.Text()
		loc := reProftpdPrefix.FindStringIndex(raw)
		if loc == nil {
			if s := strings.TrimSpace(raw); suggesting && s != "" {
				o.suggest = append(o.suggest, s)
			}
			continue
		}
		suggesting = false
		msg := strings.TrimSpace(raw[loc[1]:])
		switch {
		case msg == "fatal: Did you mean:":
			suggesting = true
		case strings.HasPrefix(msg, "fatal: "):
			if o.fatal == "" {
				o.fatal = strings.TrimPrefix(msg, "fatal: ")
				if m := reOnLine.FindStringSubmatch(o.fatal); m != nil {
					if m[3] == candidate {
						o.fatal = m[1]
						fmt.Sscan(m[2], &o.fatalLine)
					} else {
						// Never echo another file's line: it may be
						// /etc/shadow, and the status is on the share.
						o.fatal = fmt.Sprintf("the included file %s has an error on its line %s (not shown); fix or remove the Include", m[3], m[2])
					}
				}
			}
		case strings.HasPrefix(msg, "warning: "):
			o.warnings = append(o.warnings, strings.TrimPrefix(msg, "warning: "))
		case reRunArtefact.MatchString(msg):
			o.notes = append(o.notes, "proftpd -t: "+msg)
		default:
			o.other = append(o.other, msg)
		}
	}
	return o
}

// directiveLine finds the line a message without a line number is about:
// the first directive named in msg whose first argument is in msg too, or
// else the first directive named in msg. 0 when there is none.
func directiveLine(data []byte, msg string) int {
	fallback := 0
	for i, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") || strings.HasPrefix(f[0], "<") || len(f[0]) < 4 {
			continue
		}
		if !containsWord(strings.ToLower(msg), strings.ToLower(f[0])) {
			continue
		}
		if len(f) > 1 && strings.Contains(msg, strings.Trim(f[1], `"'`)) {
			return i + 1
		}
		if fallback == 0 {
			fallback = i + 1
		}
	}
	return fallback
}

func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !isWordByte(s[j-1])
		after := j+len(w) == len(s) || !isWordByte(s[j+len(w)])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// unclosedSection returns the line and text of the innermost <Section>
// that has no </Section>, or 0.
func unclosedSection(data []byte) (int, string) {
	type open struct {
		name, text string
		line       int
	}
	var stack []open
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "<") {
			continue
		}
		name := strings.ToLower(strings.Trim(strings.Fields(l + " ")[0], "<>"))
		if closing, ok := strings.CutPrefix(name, "/"); ok {
			for k := len(stack) - 1; k >= 0; k-- {
				if stack[k].name == closing {
					stack = stack[:k]
					break
				}
			}
			continue
		}
		stack = append(stack, open{name, l, i + 1})
	}
	if len(stack) == 0 {
		return 0, ""
	}
	return stack[len(stack)-1].line, stack[len(stack)-1].text
}

// proftpdFiles lists the non-directory entries named proftpd* in dirs
// (a dir that is a symlink to an earlier one counts once).
func proftpdFiles(dirs []string) []string {
	var out, seen []string
	for _, d := range dirs {
		real, err := filepath.EvalSymlinks(d)
		if err != nil || slices.Contains(seen, real) {
			continue
		}
		seen = append(seen, real)
		names, _ := os.ReadDir(d)
		for _, n := range names {
			if strings.HasPrefix(n.Name(), "proftpd") && !n.IsDir() {
				out = append(out, filepath.Join(d, n.Name()))
			}
		}
	}
	return out
}

// removeNewFiles removes the proftpd* entries of dirs that are not in
// before, and returns them.
func removeNewFiles(dirs, before []string) []string {
	var removed []string
	for _, p := range proftpdFiles(dirs) {
		if slices.Contains(before, p) {
			continue
		}
		if os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}
