package validate

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// What testparm prints on stderr (Samba 4.17; 3.0.20 prints the same
// messages after a "[date, level] file:function(line)" header). testparm
// gives no line numbers: they are found in the file (see smbconf.go).
var (
	reUnknown       = regexp.MustCompile(`Unknown parameter encountered: "(.*)"`)
	reIgnored       = regexp.MustCompile(`Ignoring unknown parameter "(.*)"`)
	reDeprecated    = regexp.MustCompile(`WARNING: The "(.*)" option is deprecated`)
	reHelper        = regexp.MustCompile(`set_variable_helper\((.*)\): (.*?)!?$`)
	reBadBool       = regexp.MustCompile(`Badly formed boolean in configuration file: "(.*)"`)
	reInvalid       = regexp.MustCompile(`Ignoring invalid value '(.*)' for parameter '(.*)'`)
	reNoService     = regexp.MustCompile(`No service name in service entry`)
	reGlobalInShare = regexp.MustCompile(`Global parameter (.+) found in service section!`)
	reDirMissing    = regexp.MustCompile(`(ERROR|WARNING): (\w+ directory \S+ does not exist)`)
	reDirPerms      = regexp.MustCompile(`WARNING: (\w+ directory \S+ should have permissions.*)`)
	reError         = regexp.MustCompile(`ERROR: (.*)`)
	reWarning       = regexp.MustCompile(`WARNING: (.*)`)
	reQuoted        = regexp.MustCompile(`"[^"]*"|'[^']*'`)
	reQuotedName    = regexp.MustCompile(`'([^'=]+?)\s*(?:=[^']*)?'`)
)

// testparmOutput is testparm's stderr, sorted.
type testparmOutput struct {
	unknown, ignored, deprecated []string    // parameter names
	valueErrs                    [][2]string // value, message
	invalid                      [][2]string // value, parameter
	globalInShare                []string    // global parameters read in a share
	noService                    bool
	dirErrors                    []string // lock/state/cache directory missing, as ERROR
	errors, warnings, notes      []string
}

func readTestparm(stderr []byte) testparmOutput {
	var o testparmOutput
	for _, l := range lines(stderr) {
		if m := reUnknown.FindStringSubmatch(l); m != nil {
			o.unknown = append(o.unknown, m[1])
		} else if m := reIgnored.FindStringSubmatch(l); m != nil {
			o.ignored = append(o.ignored, m[1])
		} else if m := reDeprecated.FindStringSubmatch(l); m != nil {
			o.deprecated = append(o.deprecated, m[1])
		} else if m := reHelper.FindStringSubmatch(l); m != nil {
			o.valueErrs = append(o.valueErrs, [2]string{m[1], m[2]})
		} else if m := reBadBool.FindStringSubmatch(l); m != nil {
			o.valueErrs = append(o.valueErrs, [2]string{m[1], "value is not boolean"})
		} else if m := reInvalid.FindStringSubmatch(l); m != nil {
			o.invalid = append(o.invalid, [2]string{m[1], m[2]})
		} else if m := reGlobalInShare.FindStringSubmatch(l); m != nil {
			o.globalInShare = append(o.globalInShare, m[1])
		} else if reNoService.MatchString(l) {
			o.noService = true
		} else if m := reDirMissing.FindStringSubmatch(l); m != nil {
			if m[1] == "ERROR" {
				o.dirErrors = append(o.dirErrors, m[2])
			} else {
				o.notes = append(o.notes, "testparm: "+m[2])
			}
		} else if m := reDirPerms.FindStringSubmatch(l); m != nil {
			o.notes = append(o.notes, "testparm: "+m[1])
		} else if m := reError.FindStringSubmatch(l); m != nil {
			o.errors = append(o.errors, m[1])
		} else if m := reWarning.FindStringSubmatch(l); m != nil {
			o.warnings = append(o.warnings, m[1])
		}
	}
	return o
}

// checkTestparm runs testparm -s on the candidate. Exit 0 accepts it
// (unknown and deprecated parameters are warnings); exit 1 refuses it,
// unless all testparm complained about is a missing state or cache
// directory of this host.
func checkTestparm(ctx context.Context, path string, opt Options) Result {
	const tool = "testparm -s"
	data, bad := readCandidate(opt, tool, path)
	if bad != nil {
		return *bad
	}
	prog, ok := opt.find("testparm")
	if !ok {
		return notFound(tool, "testparm")
	}
	out := run(ctx, opt, path, []string{prog, "-s", path})
	if out.TimedOut {
		return timedOut(tool, out, opt.timeout())
	}
	r := Result{Tool: tool, Execs: []Exec{out.Exec}}
	if out.Err != nil {
		r.Reason = "not validated: " + out.Err.Error()
		return r
	}
	o := readTestparm(out.stderr)
	conf := parseSmbConf(data)
	r.Warnings = testparmWarnings(o, conf)
	r.Notes = o.notes
	if out.ExitCode == 0 {
		r.Validated = true
		return r
	}
	if reason := testparmRefusal(o, conf); reason != "" {
		r.Validated, r.Refused, r.Reason = true, true, reason
		return r
	}
	if len(o.dirErrors) > 0 {
		r.Reason = "not validated: testparm cannot run on this host: " + o.dirErrors[0]
		return r
	}
	r.Validated, r.Refused = true, true
	r.Reason = "testparm -s: Error loading services (no line of this file is at fault: check the files it includes)"
	if l := lastLine(out.stderr); l != "" && !strings.Contains(l, "Error loading services") {
		r.Reason = fmt.Sprintf("testparm -s exited %d: %s", out.ExitCode, l)
	}
	return r
}

// testparmWarnings are the unknown and deprecated parameters, each with
// the line it is on, and testparm's other warnings.
func testparmWarnings(o testparmOutput, conf smbConf) []string {
	var w []string
	unknown, msg := o.unknown, "Unknown parameter encountered: %q"
	if len(unknown) == 0 {
		unknown, msg = o.ignored, "Ignoring unknown parameter %q"
	}
	seen := map[string]int{}
	included := false
	for _, name := range unknown {
		line := conf.lineOf(name, seen)
		if line == 0 {
			included = true // not a line of ours: never echo another file
			continue
		}
		w = append(w, atLine(line, fmt.Sprintf(msg, name)))
	}
	seen = map[string]int{}
	for _, name := range o.deprecated {
		line := conf.lineOf(name, seen)
		if line == 0 {
			included = true
			continue
		}
		w = append(w, atLine(line, fmt.Sprintf("The %q option is deprecated", name)))
	}
	if included {
		w = append(w, "an included file sets unknown or deprecated parameters (not shown: the file is not yours to read here)")
	}
	w = append(w, globalInShareWarnings(o.globalInShare, conf)...)
	for _, m := range o.warnings {
		w = append(w, redact(m, conf.text))
	}
	return w
}

// redact hides every quoted part of a validator's message that is not
// text of the candidate itself: a message about an included file must
// not copy that file's content into a status file on the share.
func redact(msg, candidate string) string {
	out := reQuoted.ReplaceAllStringFunc(msg, func(q string) string {
		if strings.Contains(candidate, q[1:len(q)-1]) {
			return q
		}
		return q[:1] + "…" + q[len(q)-1:]
	})
	return out
}

// testparmRefusal names the first problem of a file testparm could not
// load, or "" when the failure is not about a line of this file.
func testparmRefusal(o testparmOutput, conf smbConf) string {
	if len(o.valueErrs) > 0 {
		value, msg := o.valueErrs[0][0], o.valueErrs[0][1]
		if p, ok := conf.paramWithValue(value); ok {
			return atLine(p.line, fmt.Sprintf("%s = %s: %s", p.name, value, msg))
		}
		return "a value in an included file: " + msg
	}
	if len(o.invalid) > 0 {
		value, name := o.invalid[0][0], o.invalid[0][1]
		line := conf.lineOf(name, map[string]int{})
		if line == 0 {
			return "an invalid value in an included file"
		}
		return atLine(line, fmt.Sprintf("invalid value %q for parameter %q", value, name))
	}
	if o.noService && conf.emptySection > 0 {
		return atLine(conf.emptySection, "No service name in service entry: a section header needs a name")
	}
	if conf.syntax != "" {
		return conf.syntax
	}
	if len(o.errors) > 0 {
		line := 0
		if m := reQuotedName.FindStringSubmatch(o.errors[0]); m != nil {
			line = conf.lineOf(m[1], map[string]int{})
		}
		return atLine(line, redact(o.errors[0], conf.text))
	}
	return ""
}

func atLine(line int, msg string) string {
	if line <= 0 {
		return msg
	}
	return fmt.Sprintf("line %d: %s", line, msg)
}

func lastLine(b []byte) string {
	ls := lines(b)
	if len(ls) == 0 {
		return ""
	}
	return ls[len(ls)-1]
}

// globalInShareWarnings put a line on testparm's "Global parameter X
// found in service section!": Samba ignores X there. The line is the
// first X in a share of the candidate, or in [global] after an include
// (the included file ended in a share, which takes the lines after the
// include). X is a parameter of Samba's own table, never text of
// another file, so it may be named when the line is in the included file.
func globalInShareWarnings(names []string, conf smbConf) []string {
	var w []string
	used := map[int]bool{}
	for _, name := range names {
		msg := "Global parameter " + name + " found in service section!"
		p, include, ok := conf.inShare(name, used)
		switch {
		case !ok:
			w = append(w, "an included file sets global parameter "+name+" in a share section, where Samba ignores it")
		case include > 0:
			w = append(w, atLine(p, fmt.Sprintf("%s (it follows the include at line %d, which ends in a share: move it above the include)", msg, include)))
		default:
			w = append(w, atLine(p, msg+" (Samba ignores it in a share: move it into [global])"))
		}
	}
	return w
}

// inShare finds the first line not in used that sets name in a share of
// the candidate, or in the global section after an include (include is
// then that include's line).
func (c *smbConf) inShare(name string, used map[int]bool) (line, include int, ok bool) {
	key := smbKey(name)
	global, lastInclude := true, 0
	headers := sectionHeaders(c.text)
	for _, p := range c.params {
		for len(headers) > 0 && headers[0].line < p.line {
			global, lastInclude = headers[0].global, 0
			headers = headers[1:]
		}
		switch {
		case p.key == "include":
			lastInclude = p.line
		case p.key != key || used[p.line]:
		case !global:
			used[p.line] = true
			return p.line, 0, true
		case lastInclude > 0:
			used[p.line] = true
			return p.line, lastInclude, true
		}
	}
	return 0, 0, false
}

type sectionHeader struct {
	line   int
	global bool
}

// sectionHeaders are the "[name]" lines of text: lines that start with
// "[" and do not go on a line that ends in a backslash.
func sectionHeaders(text string) []sectionHeader {
	var out []sectionHeader
	continued := false
	for i, l := range strings.Split(text, "\n") {
		t := strings.TrimLeftFunc(l, isCSpace)
		if !continued && strings.HasPrefix(t, "[") {
			name, _, _ := strings.Cut(t[1:], "]")
			name = smbKey(name)
			out = append(out, sectionHeader{line: i + 1, global: name == "global" || name == "globals"})
		}
		comment := strings.HasPrefix(t, "#") || strings.HasPrefix(t, ";")
		continued = !comment && strings.HasSuffix(strings.TrimRightFunc(l, isCSpace), `\`)
	}
	return out
}
