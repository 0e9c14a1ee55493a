package history

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Marshal renders g as meta.json in the one layout both engines write
// (docs/FORMATS.md): every field on a line of its own in a fixed order,
// each list of names on one line, each file entry on one line, so the sh
// engine reads it line by line without a JSON parser.
func Marshal(g *Generation) []byte {
	var b strings.Builder
	b.WriteString("{\n")
	fmt.Fprintf(&b, "  \"id\": %d,\n", g.ID)
	fmt.Fprintf(&b, "  \"time\": %s,\n", str(g.Time.UTC().Format("2006-01-02T15:04:05Z")))
	fmt.Fprintf(&b, "  \"kind\": %s,\n", str(g.Kind))
	fmt.Fprintf(&b, "  \"from\": %d,\n", g.From)
	fmt.Fprintf(&b, "  \"result\": %s,\n", str(g.Result))
	fmt.Fprintf(&b, "  \"note\": %s,\n", str(g.Note))
	fmt.Fprintf(&b, "  \"changed\": %s,\n", strs(g.Changed))
	fmt.Fprintf(&b, "  \"restarted\": %s,\n", strs(g.Restarted))
	fmt.Fprintf(&b, "  \"rejected\": %s,\n", strs(g.Rejected))
	b.WriteString("  \"files\": [")
	for i, f := range g.Files {
		b.WriteString(sep(i))
		fmt.Fprintf(&b, "    {\"name\": %s, \"path\": %s, \"hash\": %s, \"size\": %d}", str(f.Name), str(f.Path), str(f.Hash), f.Size)
	}
	b.WriteString(end(len(g.Files)) + ",\n")
	b.WriteString("  \"replaced\": [")
	for i, r := range g.Replaced {
		b.WriteString(sep(i))
		fmt.Fprintf(&b, "    {\"name\": %s, \"hash\": %s, \"size\": %d}", str(r.Name), str(r.Hash), r.Size)
	}
	b.WriteString(end(len(g.Replaced)) + "\n}\n")
	return []byte(b.String())
}

func sep(i int) string {
	if i == 0 {
		return "\n"
	}
	return ",\n"
}

func end(n int) string {
	if n == 0 {
		return "]"
	}
	return "\n  ]"
}

// str quotes s as JSON does, without escaping <, > and & for HTML.
func str(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func strs(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = str(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
