package validate

import (
	"context"
	"fmt"
	"github.com/nas-userscript/userscript/internal/exports"
	"os"
	"regexp"
	"slices"
	"strings"
)

// What exportfs -ra prints (nfs-utils 2.6), sorted into problems of the
// file and problems of the host.
var (
	// The file is wrong: exportfs refuses it (exit 1).
	reExportfsFileError = regexp.MustCompile(`unknown keyword|syntax error|bad anonuid|bad anongid|bad fsid|unknown flavor|unknown xprtsec|bad option|expected client|path name .* too long|Invalid IP address|Invalid netmask|Invalid prefix|Invalid export syntax|incompatible duplicated export entries|reexport|uid/gid`)
	// The host cannot check it: no nfsd (old nfs-utils call nfsservctl,
	// gone since Linux 3.1: "Function not implemented"), no /var/lib/nfs.
	reExportfsHostError = regexp.MustCompile(`Function not implemented|could not open|can't lock|can't open|failed to lock|Writing to|Permission denied|Read-only file system|unshare\(\) failed|chroot\(|No such device|Operation not permitted`)
	// Said by our parser already, or only advice.
	reExportfsQuiet   = regexp.MustCompile(`No options for|No host name given|Neither 'subtree_check' or 'no_subtree_check'|Assuming default behaviour|this default has changed|^exportfs: \t`)
	reExportfsResolve = regexp.MustCompile(`Failed to resolve (\S+)`)
	reExportfsStat    = regexp.MustCompile(`Failed to stat (.*?): `)
	reExportfsHost    = regexp.MustCompile(`(?:Invalid IP address|for) (\S+)$`)
	reExportfsKeyword = regexp.MustCompile(`unknown keyword "(.*)"`)
)

// checkExports parses the candidate with ParseExports; when that finds no
// error, it also runs the real exportfs -ra on it in a private mount
// namespace: the candidate bound over /etc/exports, a tmpfs over
// /var/lib/nfs and /etc/exports.d, so neither the export table nor a
// running NFS server sees it. When exportfs cannot run here, the parser's
// verdict stands.
func checkExports(ctx context.Context, path string, opt Options) Result {
	const parserOnly = "exports parser"
	data, bad := readCandidate(opt, parserOnly, path)
	if bad != nil {
		return *bad
	}
	entries, problems := exports.Parse(data)
	r := Result{Validated: true, Tool: parserOnly}
	for _, p := range problems {
		if p.Warning {
			r.Warnings = append(r.Warnings, p.String())
		} else if !r.Refused {
			r.Refused, r.Reason = true, p.String()
		}
	}
	if r.Refused {
		return r
	}
	prog, ok := opt.find("exportfs")
	if !ok {
		r.Notes = append(r.Notes, "exportfs not found: checked by our parser only")
		return r
	}
	var out output
	err := errNoNamespace(opt)
	if err == nil {
		err = isolated(func() error { return exportsNamespace(path) }, func() {
			out = run(ctx, opt, path, []string{prog, "-ra"})
		})
	}
	if err != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("exportfs -ra not run (%v): checked by our parser only", err))
		return r
	}
	r.Execs = append(r.Execs, out.Exec)
	if out.Err != nil {
		r.Notes = append(r.Notes, "exportfs -ra: "+out.Err.Error()+": checked by our parser only")
		return r
	}
	return exportfsVerdict(r, out, entries)
}

// exportsNamespace prepares the namespace exportfs -ra runs in.
func exportsNamespace(candidate string) error {
	for _, need := range []string{"/etc/exports", "/var/lib/nfs"} {
		if _, err := os.Stat(need); err != nil {
			return &nsError{"need " + need + " to mount over", err}
		}
	}
	if err := bindFile(candidate, "/etc/exports"); err != nil {
		return err
	}
	if err := mountTmpfs("/var/lib/nfs", 0o755); err != nil {
		return err
	}
	if fi, err := os.Stat("/etc/exports.d"); err == nil && fi.IsDir() {
		return mountTmpfs("/etc/exports.d", 0o755)
	}
	return nil
}

// exportfsVerdict reads exportfs's stderr: refused only for a problem
// of the file; what the host cannot do leaves the parser's verdict.
func exportfsVerdict(r Result, out output, exports []exports.Export) Result {
	var fileErrs, hostErrs, other []string
	missing := 0
	for _, l := range lines(out.stderr) {
		switch {
		case reExportfsQuiet.MatchString(l):
		case reExportfsResolve.MatchString(l):
			host := reExportfsResolve.FindStringSubmatch(l)[1]
			note := atLine(clientLine(exports, host), "exportfs cannot resolve client "+host+" on this host")
			if !slices.Contains(r.Notes, note) {
				r.Notes = append(r.Notes, note)
			}
		case reExportfsStat.MatchString(l):
			// The folder is missing here: on the device it may be on a
			// disk that is not mounted yet, and exportfs only skips that
			// entry. Tell, don't refuse.
			r.Warnings = append(r.Warnings, exportfsReason(l, exports)+" (NFS skips this export until the folder exists)")
			missing++
		case reExportfsFileError.MatchString(l):
			fileErrs = append(fileErrs, l)
		case reExportfsHostError.MatchString(l):
			hostErrs = append(hostErrs, l)
		default:
			other = append(other, l)
		}
	}
	tool := "exports parser + exportfs -ra"
	switch {
	case len(fileErrs) > 0:
		r.Tool, r.Refused, r.Reason = tool, true, exportfsReason(fileErrs[0], exports)
	case out.ExitCode == 0 || len(hostErrs)+len(other) == 0 && missing > 0:
		// Clean, or only missing folders (which make exportfs exit 1).
		r.Tool = tool
		r.Notes = append(r.Notes, append(hostErrs, other...)...)
	default:
		msg := fmt.Sprintf("exit %d", out.ExitCode)
		if all := append(hostErrs, other...); len(all) > 0 {
			msg = all[0]
		}
		r.Notes = append(r.Notes, "exportfs -ra cannot check the file on this host ("+msg+"): checked by our parser only")
	}
	return r
}

// exportfsReason puts our line number on an exportfs message: exportfs
// counts lines without the comment lines, so its own are not used.
func exportfsReason(msg string, exports []exports.Export) string {
	msg = strings.TrimSpace(msg)
	line := 0
	if m := reExportfsStat.FindStringSubmatch(msg); m != nil {
		for _, e := range exports {
			if e.Path == m[1] {
				line = e.Line
				break
			}
		}
	} else if m := reExportfsKeyword.FindStringSubmatch(msg); m != nil {
		line = optionLine(exports, m[1])
	} else if m := reExportfsHost.FindStringSubmatch(msg); m != nil {
		line = clientLine(exports, m[1])
	}
	return atLine(line, msg)
}

func clientLine(exports []exports.Export, host string) int {
	for _, e := range exports {
		for _, c := range e.Clients {
			if c.Host == host {
				return c.Line
			}
		}
	}
	return 0
}

func optionLine(exports []exports.Export, opt string) int {
	for _, e := range exports {
		for _, c := range e.Clients {
			if slices.Contains(c.Effective(), opt) {
				return c.Line
			}
		}
	}
	return 0
}
