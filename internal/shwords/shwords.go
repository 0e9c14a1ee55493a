package shwords

import (
	"fmt"
	"strings"

	"github.com/nas-userscript/userscript/internal/source"
	"github.com/nas-userscript/userscript/internal/status"
)

// Render is the text of package/lib/words.sh.
func Render() []byte {
	var b strings.Builder
	b.WriteString(`# shellcheck shell=sh
# userscript sh engine: the names in conf.d and the status words both
# engines use. GENERATED from internal/source/names.go and
# internal/status/status.go by ` + "`go test ./internal/shwords -update`" + `:
# do not edit. Names compare without case (a case pattern per name).
# Sourced by engine.sh.
# shellcheck disable=SC2034

`)
	fn(&b, "reserved", "is one of conf.d's reserved names: never a source, never a status of its own", source.ReservedNames)
	fn(&b, "is_disable", "is the owner's off switch", source.DisableNames)
	fn(&b, "is_safe_mode", "says the engines are in safe mode", []string{strings.ToLower(source.SafeMode)})
	fn(&b, "dropping", "is a file Windows Explorer leaves (macOS's start with a dot)", source.Droppings)
	var backups []string
	for _, end := range source.BackupEndings {
		backups = append(backups, "?*"+pattern(end), "?*"+pattern(end+".txt"))
	}
	patternFn(&b, "backup", "is one of the owner's backups (smb.conf.bak), also with the \".txt\" Notepad adds", backups)
	b.WriteString("# The words of the status: line.\n")
	for _, w := range status.Words {
		fmt.Fprintf(&b, "W_%s='%s'\n", strings.ReplaceAll(string(w), " ", "_"), w)
	}
	return []byte(b.String())
}

// fn writes a function NAME that is true for the names of list, any case.
func fn(b *strings.Builder, name, doc string, list []string) {
	pats := make([]string, len(list))
	for i, n := range list {
		pats[i] = pattern(n)
	}
	patternFn(b, name, doc, pats)
}

// patternFn writes a function NAME that is true for the case patterns pats.
func patternFn(b *strings.Builder, name, doc string, pats []string) {
	fmt.Fprintf(b, "# %s NAME: NAME %s.\n%s() {\n\tcase $1 in\n\t%s) return 0 ;;\n\tesac\n\treturn 1\n}\n\n", name, doc, name, strings.Join(pats, " | "))
}

// pattern is a case pattern that matches name in any case: each ASCII
// letter as [Xx], every other character quoted.
func pattern(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
			fmt.Fprintf(&b, "[%c%c]", r&^0x20, r|0x20)
		case r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "'%c'", r)
		}
	}
	return b.String()
}
