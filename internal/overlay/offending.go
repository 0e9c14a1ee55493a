package overlay

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/nas-userscript/userscript/internal/source"
)

// maxQuote bounds the text of a line quoted in a status file.
const maxQuote = 200

var (
	// "line 12: ..." — a validator's reason, about the staged target.
	reTargetLine = regexp.MustCompile(`^line (\d+): `)
	// "conf.d/smb.conf.merge line 2: ..." — a merge's reason, about a source.
	reSourceLine = regexp.MustCompile(`conf\.d/(\S+) line (\d+):`)
)

// offendingLine is the status's line: for a refusal whose reason names a
// line, that line's text, where it is a line the owner wrote — in which
// of the owner's files, and which line of it. A line of the firmware's
// own file is named but not quoted; a line of a file the target includes
// is never even looked at (validators' reasons about included files
// carry no "line N:" of the target).
func offendingLine(it *Item, reason string) string {
	if m := reSourceLine.FindStringSubmatch(reason); m != nil {
		n, _ := strconv.Atoi(m[2])
		for _, s := range it.Sources {
			if s.File == m[1] {
				if text, ok := lineOf(s.Data, n); ok {
					return fmt.Sprintf("conf.d/%s line %d: %s", s.File, n, quote(text))
				}
			}
		}
		return ""
	}
	m := reTargetLine.FindStringSubmatch(reason)
	if m == nil {
		return ""
	}
	n, _ := strconv.Atoi(m[1])
	text, ok := lineOf(it.Want, n)
	if !ok {
		return ""
	}
	if file, line, ok := it.ownLine(n, text); ok {
		return fmt.Sprintf("conf.d/%s line %d: %s", file, line, quote(text))
	}
	return fmt.Sprintf("line %d is from the firmware's own file (see conf.d/.firmware/%s), not from yours", n, it.Target.Name)
}

// ownLine finds where line n (text) of the target comes from among the
// owner's sources: the appended text, a line of the .merge, or the
// replacement. ok is false for a line of the base.
func (it *Item) ownLine(n int, text string) (file string, line int, ok bool) {
	total := countLines(it.Want)
	var merged bool
	for _, s := range it.Sources {
		merged = merged || s.Kind == source.Merge
	}
	for _, s := range it.Sources {
		switch s.Kind {
		case source.Add:
			if bytes.HasSuffix(it.Want, s.Data) {
				start := total - countLines(s.Data) + 1
				if n >= start {
					return s.File, n - start + 1, true
				}
			}
		case source.Merge:
			if i := findLine(s.Data, text); i > 0 {
				return s.File, i, true
			}
		}
	}
	for _, s := range it.Sources {
		if s.Kind != source.Replace {
			continue
		}
		if t, ok := lineOf(s.Data, n); ok && t == text && !merged {
			return s.File, n, true
		}
		if i := findLine(s.Data, text); i > 0 {
			return s.File, i, true
		}
	}
	return "", 0, false
}

// lineOf is line n (from 1) of data, without its newline.
func lineOf(data []byte, n int) (string, bool) {
	if n < 1 {
		return "", false
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if n > len(lines) || len(data) == 0 {
		return "", false
	}
	return lines[n-1], true
}

// findLine is the number of the first line of data that reads text
// (spaces around it aside), or 0. Blank lines never match.
func findLine(data []byte, text string) int {
	want := strings.TrimSpace(text)
	if want == "" {
		return 0
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == want {
			return i + 1
		}
	}
	return 0
}

func countLines(data []byte) int {
	if len(data) == 0 {
		return 0
	}
	return bytes.Count(data, []byte("\n")) + btoi(data[len(data)-1] != '\n')
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// quote makes a line fit one status line: control characters become
// spaces, and it is cut at maxQuote characters.
func quote(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\t' {
			return ' '
		}
		return r
	}, strings.TrimSpace(s))
	if r := []rune(s); len(r) > maxQuote {
		s = string(r[:maxQuote]) + "…"
	}
	return s
}
