package merge

import (
	"fmt"
	"path"
	"strings"
)

// Format names.
const (
	Samba    = "samba"    // smb.conf: [section] and key = value
	ProFTPD  = "proftpd"  // proftpd.conf: directives and <Block> sections
	Exports  = "exports"  // /etc/exports: one line per exported path
	KeyValue = "keyvalue" // sysctl.conf, vsftpd.conf and other key = value files
)

// FormatFor returns the format for a target name or path: smb.conf is
// Samba, proftpd.conf ProFTPD, exports Exports, and any other name
// KeyValue, except names whose files are known not to be key = value
// files (hosts, passwd, fstab, crontab, shell scripts, ini and XML
// files …): for those ok is false and the target cannot be merged.
func FormatFor(target string) (format string, ok bool) {
	name := strings.ToLower(path.Base(strings.ReplaceAll(target, `\`, "/")))
	ext := path.Ext(name)
	switch {
	case name == "smb.conf", strings.HasSuffix(name, ".smb.conf"), strings.HasPrefix(name, "smb.conf."),
		name == "rsyncd.conf":
		return Samba, true
	case name == "proftpd.conf", strings.HasPrefix(name, "proftpd") && ext == ".conf":
		return ProFTPD, true
	case name == "exports", ext == ".exports":
		return Exports, true
	case notKeyValue[name], notKeyValueExt[ext], strings.HasPrefix(name, "rc."),
		name == "." || name == "/" || name == "":
		return "", false
	}
	return KeyValue, true
}

// notKeyValue are file names whose lines are not key = value.
var notKeyValue = map[string]bool{
	"hosts": true, "hosts.allow": true, "hosts.deny": true, "hostname": true,
	"passwd": true, "group": true, "shadow": true, "gshadow": true, "smbpasswd": true,
	"fstab": true, "mtab": true, "crypttab": true, "inittab": true, "crontab": true,
	"resolv.conf": true, "nsswitch.conf": true, "services": true, "protocols": true,
	"shells": true, "ftpusers": true, "modules": true, "motd": true, "issue": true,
	".htpasswd": true, ".htaccess": true, "httpd.conf": true, "apache2.conf": true,
	"lighttpd.conf": true, "nginx.conf": true, "vsftpd.user_list": true,
	"authorized_keys": true, "known_hosts": true, "sshd_config": true, "ssh_config": true,
}

// notKeyValueExt are extensions of files that are not key = value.
var notKeyValueExt = map[string]bool{
	".sh": true, ".ini": true, ".xml": true, ".json": true, ".yaml": true, ".yml": true,
	".toml": true, ".html": true, ".js": true, ".php": true, ".pem": true, ".crt": true,
	".key": true, ".db": true, ".tdb": true,
}

// Merge applies fragment onto base and returns the result. fragName
// names the fragment in errors and provenance ("smb.conf.merge").
// Everything the fragment does not touch keeps the base's text, order,
// comments and indentation; the result ends with a newline. Merging the
// same fragment again changes nothing.
func Merge(format string, base, fragment []byte, fragName string) ([]byte, error) {
	out, _, err := MergeWarn(format, base, fragment, fragName)
	return out, err
}

// MergeWarn is Merge that also returns its warnings: the lines of the
// fragment that did nothing, each with the fragment's name and line (a
// deletion that matched nothing: misspelt, or gone from the base).
func MergeWarn(format string, base, fragment []byte, fragName string) ([]byte, []string, error) {
	syn, err := syntaxFor(format)
	if err != nil {
		return nil, nil, err
	}
	frag, err := syn.parseFragment(string(fragment), fragName)
	if err != nil {
		return nil, nil, err
	}
	doc := syn.parse(prepare(syn, string(base)))
	m := newMerger(syn, doc)
	if err := m.apply(frag); err != nil {
		return nil, nil, err
	}
	return []byte(render(doc)), m.warnings, nil
}

// A syntax is what the merge engine needs to know about a format.
type syntax struct {
	// parse reads a file; it accepts any text and is lossless.
	parse func(text string) *node
	// line reads one logical line of a file on its own.
	line func(text string) *node
	// parseFragment reads a fragment; it is strict and names the line of
	// every mistake.
	parseFragment func(text, src string) (*node, error)
	// cont tells splitLines whether a logical line continues.
	cont func(first, cur string) bool
	// transparent reports whether lookups see through block b into what
	// it holds (proftpd's <IfModule>).
	transparent func(b *node) bool
	// extra returns containers searched besides the matched blocks when a
	// fragment block is merged (smb.conf: keys before any section are
	// global).
	extra func(root, fragBlock *node) []*node
	// repeats reports whether an entry name legitimately repeats; a new
	// one goes after the last of its name.
	repeats func(name string) bool
	// section names the blocks holding an entry, for Explain.
	section func(path []*node) string
	// blocksAtEnd: new blocks go at the end of the file after a blank
	// line (smb.conf sections have no closing line) …
	blocksAtEnd bool
	// … unless blockPos names the place in parent a new block like proto
	// goes before (smb.conf: a new [global] before the first share).
	blockPos func(parent, proto *node) int
	// before names the entries a new line called name goes before the
	// first of, in its block, or "" (smb.conf: before the first include).
	before func(name string) string
	// onePerBlock: a key has one line per block; when a fragment sets it,
	// the first takes the value and the others go (smb.conf synonyms,
	// exports lines of one path).
	onePerBlock bool
	// keyFor is the key a line of the file that the fragment line want
	// sets is written with; nil keeps the line's own.
	keyFor func(have, want *node) string
	// newInFirst: a new line of a block the file has twice goes into the
	// first (smb.conf: a [global] written again after the shares reaches
	// only the shares after it); else into the last.
	newInFirst bool
	// twins: blocks with the same identity are different places (proftpd
	// <VirtualHost>s); a fragment block that matches more than one is
	// refused. Otherwise (smb.conf) they are one section written twice.
	twins bool
	// sepFromFile: new entries use the file's own separator, "=" or " = "
	// (vsftpd.conf allows no spaces around "=").
	sepFromFile bool
	// unit indents the lines of a new block when the file shows none.
	unit string
}

func syntaxFor(format string) (*syntax, error) {
	switch format {
	case Samba:
		return sambaSyntax, nil
	case ProFTPD:
		return proftpdSyntax, nil
	case Exports:
		return exportsSyntax, nil
	case KeyValue:
		return keyValueSyntax, nil
	}
	return nil, fmt.Errorf("unknown merge format %q (use %s, %s, %s or %s)", format, Samba, ProFTPD, Exports, KeyValue)
}

// prepare makes text safe to add lines to: it ends with a newline, and a
// continuation backslash on the last line is given the empty line it
// asks for, so that nothing added later is pulled into it.
func prepare(syn *syntax, text string) string {
	if text == "" {
		return text
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if ls := splitLines(text, syn.cont); len(ls) > 0 && ls[len(ls)-1].open {
		text += "\n"
	}
	return text
}

// fragError is an error about one line of a fragment.
func fragError(src string, line int, format string, args ...any) error {
	return fmt.Errorf("%s line %d: %s", src, line, fmt.Sprintf(format, args...))
}

// origin names a line of a fragment as a source.
func origin(src string, line int) string {
	return fmt.Sprintf("%s line %d", src, line)
}

// fragmentLines splits a fragment into logical lines; a fragment that
// does not end with a newline is read as if it did.
func fragmentLines(text string, cont func(first, cur string) bool) []logical {
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return splitLines(text, cont)
}

// continuedAtEnd is the error for a fragment whose last line asks for a
// continuation.
func continuedAtEnd(src string, l logical) error {
	return fragError(src, l.no, `the last line ends with \ but no line follows: remove the \`)
}
