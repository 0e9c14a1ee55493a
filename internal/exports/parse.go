package exports

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// An Export is one entry of an exports(5) file: a path and the clients it
// is exported to, in file order. Two lines with the same path are two
// Exports.
type Export struct {
	Path    string // decoded: quotes removed, \ooo escapes turned into bytes
	Line    int    // line of the path
	Clients []Client
}

// A Client is one client of an export.
type Client struct {
	// Host is the client as exportfs reads it: a host name, an IP
	// address, a network (address/prefix, address/netmask), a wildcard,
	// an @netgroup or "*". "" means the line names no client, which
	// exportfs exports to everyone.
	Host string
	// Options are the options in parentheses after the host; nil when
	// there are no parentheses, empty for "()".
	Options []string
	// Defaults are the default options ("-ro,sync") in force for this
	// client: those written after the path and before the client.
	Defaults []string
	Line     int
}

// Effective returns the options exportfs applies to c: Defaults, then
// Options (a later option overrides an earlier one).
func (c Client) Effective() []string {
	return append(slices.Clone(c.Defaults), c.Options...)
}

// A Problem is something wrong in an exports file.
type Problem struct {
	Line    int
	Msg     string
	Warning bool // false: exportfs would refuse or misread the file
}

func (p Problem) String() string {
	if p.Line <= 0 {
		return p.Msg
	}
	return fmt.Sprintf("line %d: %s", p.Line, p.Msg)
}

// Token sizes of nfs-utils (e_path[NFS_MAXPATHLEN+1], exp[512]): a
// longer token is refused, as exportfs refuses it.
const (
	pathSize   = 1025
	clientSize = 512
	maxPath    = pathSize - 1
	maxClient  = clientSize - 1
	exportsEOF = -1
	badQuote   = -2
)

// ParseExports reads an exports(5) file the way exportfs (nfs-utils 2.x,
// support/nfs/exports.c and xio.c) reads it, and reports what exportfs
// would refuse or misread (errors) and what is legal but likely a mistake
// (warnings). Problems are in line order.
func Parse(data []byte) ([]Export, []Problem) {
	p := &exportsParser{data: data, line: 1}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		p.errorf(1+bytes.Count(data[:i], []byte("\n")), "NUL byte in the file")
	}
	p.parse()
	p.checkDuplicates()
	sort.SliceStable(p.problems, func(i, j int) bool { return p.problems[i].Line < p.problems[j].Line })
	return p.exports, p.problems
}

type exportsParser struct {
	data     []byte
	pos      int
	line     int
	exports  []Export
	meta     []clientMeta // of the clients of the last export
	problems []Problem
}

// clientMeta is how a client was written, for the warnings.
type clientMeta struct {
	noHost bool // "(opts)" without a host
	world  bool // no client at all
}

func (p *exportsParser) errorf(line int, format string, args ...any) {
	p.problems = append(p.problems, Problem{Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (p *exportsParser) warnf(line int, format string, args ...any) {
	p.problems = append(p.problems, Problem{Line: line, Msg: fmt.Sprintf(format, args...), Warning: true})
}

// getc is xgetc: a backslash before a newline joins two lines; it reads
// as one space and the blanks after it are skipped.
func (p *exportsParser) getc() int {
	if p.pos >= len(p.data) {
		return exportsEOF
	}
	c := p.data[p.pos]
	p.pos++
	if c == '\\' && p.pos < len(p.data) && p.data[p.pos] == '\n' {
		p.pos++
		p.line++
		for p.pos < len(p.data) && (p.data[p.pos] == ' ' || p.data[p.pos] == '\t') {
			p.pos++
		}
		return ' '
	}
	if c == '\n' {
		p.line++
	}
	return int(c)
}

// unget puts back the real character just read.
func (p *exportsParser) unget(c int) {
	if c == exportsEOF {
		return
	}
	p.pos--
	if c == '\n' {
		p.line--
	}
}

// skip is xskip: it passes characters of set, and comments. A # starts a
// comment only here, between tokens; inside a token it is a character.
func (p *exportsParser) skip(set string) {
	for {
		c := p.getc()
		if c == '#' {
			c = p.skipComment()
		}
		if c == exportsEOF {
			return
		}
		if c != 0 && !strings.ContainsRune(set, rune(c)) {
			p.unget(c)
			return
		}
	}
}

func (p *exportsParser) skipComment() int {
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		p.pos++
		if c == '\n' {
			p.line++
			return '\n'
		}
	}
	return exportsEOF
}

func isCSpaceByte(c int) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// gettok is xgettok: a token ends at white space (or NUL) outside double
// quotes; the quotes are dropped; \ooo below 0400 is one byte. It returns
// 0 for an empty token, -1 for one of size or more bytes, and badQuote
// (reported) when a quote is still open at the end of the line: exportfs
// would go on reading the next line into the token.
func (p *exportsParser) gettok(size int) (int, string) {
	var tok []byte
	quoted := false
	line := p.line
	for len(tok) < size {
		c := p.getc()
		if quoted && (c == exportsEOF || c == '\n') {
			p.errorf(line, "no closing double quote on the line")
			p.unget(c)
			return badQuote, ""
		}
		if c == exportsEOF {
			break
		}
		if !quoted && (c == 0 || isCSpaceByte(c)) {
			if c == '\n' {
				p.unget(c)
			}
			break
		}
		if c == '"' {
			quoted = !quoted
			continue
		}
		tok = append(tok, byte(c))
		if n := len(tok); n >= 4 && tok[n-4] == '\\' && isOctal(tok[n-3]) && isOctal(tok[n-2]) && isOctal(tok[n-1]) {
			if v := int(tok[n-3]-'0')<<6 | int(tok[n-2]-'0')<<3 | int(tok[n-1]-'0'); v < 256 {
				tok = append(tok[:n-4], byte(v))
			}
		}
	}
	switch {
	case len(tok) == 0:
		return 0, ""
	case len(tok) >= size:
		return -1, ""
	}
	return 1, string(tok)
}

// resync skips the rest of the line after an error; exportfs stops
// reading there, we go on to report more.
func (p *exportsParser) resync() {
	for c := p.getc(); c != exportsEOF && c != '\n'; c = p.getc() {
	}
}

// getexport reads the next client (or default options) on the line.
func (p *exportsParser) getexport() (int, string, int) {
	p.skip(" \t")
	line := p.line
	ok, tok := p.gettok(clientSize)
	return ok, tok, line
}

// parse follows getexportent: a path, then clients until the end of the
// line; "-opts" before a client sets default options for the rest of the
// line; a path with no client (or default options last) exports to
// everyone.
func (p *exportsParser) parse() {
	first := true
	var defaults []string
	for {
		ok, tok, line := 0, "", 0
		if !first {
			ok, tok, line = p.getexport()
		}
		if first || ok == 0 {
			p.finishExport()
			defaults = nil
			p.skip(" \t\n")
			pathLine := p.line
			pok, path := p.gettok(pathSize)
			if pok == 0 && p.pos >= len(p.data) {
				return
			}
			if pok <= 0 {
				switch pok {
				case badQuote:
				case 0:
					p.errorf(pathLine, "empty path (a stray control character or \"\"): exportfs stops reading the file here")
				default:
					p.errorf(pathLine, "path longer than %d bytes", maxPath)
				}
				p.resync()
				first = true
				continue
			}
			p.exports = append(p.exports, Export{Path: path, Line: pathLine})
			ok, tok, line = p.getexport()
		}
		first = false
		if ok > 0 && tok[0] == '-' {
			opts, good := p.options(tok[1:], tok, line)
			if good && len(opts) == 0 {
				p.errorf(line, "empty default options %q", tok)
				good = false
			}
			if good {
				defaults = append(defaults, opts...)
				ok, tok, line = p.getexport()
				if ok > 0 && tok[0] == '-' {
					p.errorf(line, "two default option lists in a row: exportfs reads %q as a host name; join them, e.g. -ro,sync", tok)
					good = false
				}
			}
			if !good {
				p.resync()
				first = true
				continue
			}
		}
		if ok < 0 || !p.client(ok, tok, line, defaults) {
			if ok == -1 {
				p.errorf(line, "client longer than %d bytes", maxClient)
			}
			p.resync()
			first = true
		}
	}
}

// client adds the client in tok (ok == 0: none, which is everyone).
func (p *exportsParser) client(ok int, tok string, line int, defaults []string) bool {
	e := &p.exports[len(p.exports)-1]
	c := Client{Host: tok, Defaults: slices.Clone(defaults), Line: line}
	m := clientMeta{world: ok == 0}
	if open := strings.IndexByte(tok, '('); open >= 0 {
		c.Host = tok[:open]
		if open == 0 {
			c.Host, m.noHost = "*", true
		}
		rest := tok[open+1:]
		end := strings.IndexByte(rest, ')')
		if end < 0 || end != len(rest)-1 {
			why := `no closing ")" (no spaces are allowed inside the parentheses)`
			if end >= 0 {
				why = `text after ")"`
			}
			p.errorf(line, "bad option list in %q: %s", tok, why)
			return false
		}
		opts, good := p.options(rest[:end], tok, line)
		if !good {
			return false
		}
		c.Options = opts
	}
	if strings.IndexByte(tok, 0) >= 0 {
		p.errorf(line, `\000 (NUL) in %q`, tok)
		return false
	}
	if n := len(c.Host) + len(strings.Join(c.Options, ",")) + 2; n > maxClient {
		p.errorf(line, "client longer than %d bytes", maxClient)
		return false
	}
	if msg, warn := checkHost(c.Host); msg != "" {
		if !warn {
			p.errorf(line, "%s", msg)
			return false
		}
		p.warnf(line, "%s", msg)
	}
	e.Clients = append(e.Clients, c)
	p.meta = append(p.meta, m)
	return true
}

// finishExport checks the path of the last export and warns about
// clients that are likely not what the user meant.
func (p *exportsParser) finishExport() {
	defer func() { p.meta = nil }()
	if len(p.exports) == 0 {
		return
	}
	e := &p.exports[len(p.exports)-1]
	switch {
	case !strings.HasPrefix(e.Path, "/"):
		p.errorf(e.Line, "path %q is not absolute", e.Path)
	case strings.IndexByte(e.Path, 0) >= 0:
		p.errorf(e.Line, `\000 (NUL) in path %q`, e.Path)
	case len(e.Path) > maxPath:
		p.errorf(e.Line, "path longer than %d bytes", maxPath)
	}
	for i, c := range e.Clients {
		if i >= len(p.meta) {
			break
		}
		m := p.meta[i]
		spaced := i+1 < len(e.Clients) && i+1 < len(p.meta) && p.meta[i+1].noHost && c.Options == nil && !m.world
		switch {
		case m.world:
			p.warnf(c.Line, "no client for %s: exportfs exports it to everyone; name the clients, e.g. %s 192.168.1.0/24(ro)", e.Path, e.Path)
		case spaced:
			next := e.Clients[i+1]
			opts := "(" + strings.Join(next.Options, ",") + ")"
			p.warnf(c.Line, "space between %q and %q: exportfs reads two clients, %s with default options (read-only) and %s for everyone; remove the space", c.Host, opts, c.Host, opts)
		case m.noHost && (i == 0 || e.Clients[i-1].Options != nil || p.meta[i-1].world):
			opts := "(" + strings.Join(c.Options, ",") + ")"
			p.warnf(c.Line, "no client before %q: exportfs exports it to everyone; write *%s to mean that, or name the client", opts, opts)
		case c.Options == nil && len(c.Defaults) == 0 && !m.noHost:
			p.warnf(c.Line, "no options for %s: exportfs uses read-only defaults; write them, e.g. %s(ro,sync) or %s(rw,sync)", c.Host, c.Host, c.Host)
		}
	}
}

// checkDuplicates finds a client named twice for one path: with other
// options exportfs refuses the file ("incompatible duplicated export
// entries"); with the same ones it is only redundant.
func (p *exportsParser) checkDuplicates() {
	type first struct {
		line int
		opts map[string]string
	}
	seen := map[string]first{}
	for _, e := range p.exports {
		for _, c := range e.Clients {
			key := e.Path + "\x00" + c.Host // exportfs keeps "" (no client) apart from "*"
			host := c.Host
			if host == "" {
				host = "everyone (no client named)"
			}
			opts := canonicalOptions(c.Effective())
			f, dup := seen[key]
			if !dup {
				seen[key] = first{c.Line, opts}
				continue
			}
			if maps.Equal(f.opts, opts) {
				p.warnf(c.Line, "%s is exported to %s twice (first on line %d)", e.Path, host, f.line)
			} else {
				p.errorf(c.Line, "%s is exported to %s twice with different options (first on line %d): exportfs refuses that", e.Path, host, f.line)
			}
		}
	}
}
