package statuspage

import (
	"fmt"
	"regexp"
	"strings"
)

// Shell is the text of package/lib/pagetext.sh: one function a
// template, pt_NAME, that sets T to the template in PG_LANG with each
// {{name}} taken from the variable pv_name. page.sh fills the variables
// with escaped values, as Build does.
func Shell() []byte {
	var b strings.Builder
	b.WriteString(`# shellcheck shell=sh
# userscript sh engine: the fixed text of conf.d/STATUS.html, one function
# a template: pt_NAME sets T to it in the language PG_LANG, each {{name}}
# of the template the value of pv_name. GENERATED from
# internal/statuspage/templates.go by ` + "`go test ./internal/statuspage -update`" + `:
# do not edit. Sourced by page.sh.
# shellcheck disable=SC2154,SC2034

`)
	for _, name := range names {
		fmt.Fprintf(&b, "pt_%s() {\n", name)
		e := shQuote(en[name])
		if d := shQuote(de[name]); d != e {
			fmt.Fprintf(&b, "\tcase $PG_LANG in\n\tde) T=%s ;;\n\t*) T=%s ;;\n\tesac\n", d, e)
		} else {
			fmt.Fprintf(&b, "\tT=%s\n", e)
		}
		b.WriteString("}\n\n")
	}
	return []byte(strings.TrimSuffix(b.String(), "\n"))
}

var placeholder = regexp.MustCompile(`\{\{([a-z]+)\}\}`)

// shQuote is t as a double-quoted sh word whose {{name}} are ${pv_name}.
func shQuote(t string) string {
	var b strings.Builder
	b.WriteByte('"')
	last := 0
	for _, m := range placeholder.FindAllStringSubmatchIndex(t, -1) {
		b.WriteString(shEscape(t[last:m[0]]))
		b.WriteString("${pv_" + t[m[2]:m[3]] + "}")
		last = m[1]
	}
	b.WriteString(shEscape(t[last:]))
	b.WriteByte('"')
	return b.String()
}

func shEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(s)
}
