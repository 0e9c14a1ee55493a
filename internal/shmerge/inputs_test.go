package shmerge

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The inputs of the Go merge tests are read from their source, so that
// every case they add is run here too: a mergeCase's base and frag, an
// errCase's frag, the table of TestDeleteNothing, the fuzz seeds
// ([2]string{base, frag}) and the fuzz corpus files.

// A pair is a base and a fragment.
type pair struct{ base, frag string }

// goTestInputs are the base and fragment pairs of internal/merge's tests.
func goTestInputs(t *testing.T) []pair {
	t.Helper()
	dir := filepath.Join("..", "merge")
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the Go merge tests: %v", err)
	}
	fset := token.NewFileSet()
	var parsed []*ast.File
	consts := map[string]string{}
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, af)
		collectConsts(af, consts)
	}
	var out []pair
	for _, af := range parsed {
		ast.Inspect(af, func(n ast.Node) bool {
			if cl, ok := n.(*ast.CompositeLit); ok {
				out = append(out, pairsOf(cl, consts)...)
			}
			return true
		})
	}
	return append(out, fuzzCorpus(t, dir)...)
}

// collectConsts keeps the string constants of a file (sambaSeed …).
func collectConsts(af *ast.File, consts map[string]string) {
	for _, d := range af.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i < len(vs.Values) {
					if v, ok := stringOf(vs.Values[i], consts); ok {
						consts[name.Name] = v
					}
				}
			}
		}
	}
}

// pairsOf reads a composite literal that is a test case.
func pairsOf(cl *ast.CompositeLit, consts map[string]string) []pair {
	if at, ok := cl.Type.(*ast.ArrayType); ok {
		if id, ok := at.Elt.(*ast.Ident); ok && id.Name == "errCase" {
			var out []pair
			for _, e := range cl.Elts {
				if c, ok := e.(*ast.CompositeLit); ok && len(c.Elts) == 3 {
					if frag, ok := stringOf(c.Elts[1], consts); ok {
						out = append(out, pair{"x\n", frag})
					}
				}
			}
			return out
		}
		if at.Len != nil && len(cl.Elts) == 2 { // [2]string{base, frag}
			return twoStrings(cl.Elts[0], cl.Elts[1], consts)
		}
	}
	keyed := map[string]ast.Expr{}
	for _, e := range cl.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok {
				keyed[k.Name] = kv.Value
			}
		}
	}
	if keyed["base"] != nil && keyed["frag"] != nil {
		return twoStrings(keyed["base"], keyed["frag"], consts)
	}
	if len(cl.Elts) >= 4 && cl.Type == nil { // {name, Format, base, frag, want}
		if id, ok := cl.Elts[1].(*ast.Ident); ok && strings.Contains("Samba ProFTPD Exports KeyValue", id.Name) {
			return twoStrings(cl.Elts[2], cl.Elts[3], consts)
		}
	}
	return nil
}

func twoStrings(a, b ast.Expr, consts map[string]string) []pair {
	base, ok1 := stringOf(a, consts)
	frag, ok2 := stringOf(b, consts)
	if !ok1 || !ok2 {
		return nil
	}
	return []pair{{base, frag}}
}

// stringOf evaluates a string literal, a string constant, or a sum of
// them.
func stringOf(e ast.Expr, consts map[string]string) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.Ident:
		s, ok := consts[e.Name]
		return s, ok
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		x, ok1 := stringOf(e.X, consts)
		y, ok2 := stringOf(e.Y, consts)
		return x + y, ok1 && ok2
	case *ast.ParenExpr:
		return stringOf(e.X, consts)
	}
	return "", false
}

// fuzzCorpus reads testdata/fuzz/*/*: "go test fuzz v1" files of two
// []byte values, base and fragment.
func fuzzCorpus(t *testing.T, dir string) []pair {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "testdata", "fuzz", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []pair
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var vals []string
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "[]byte("); ok {
				if s, err := strconv.Unquote(strings.TrimSuffix(v, ")")); err == nil {
					vals = append(vals, s)
				}
			}
		}
		if len(vals) == 2 {
			out = append(out, pair{vals[0], vals[1]})
		}
	}
	return out
}
