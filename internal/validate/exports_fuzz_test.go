package validate

import (
	"bytes"
	"reflect"
	"testing"
	"time"
)

// FuzzParseExports proves, for any input: ParseExports returns (never
// panics, never hangs), gives the same answer twice, puts every line
// number inside the file, and, when it finds no error, FormatExports
// writes a file that parses to the same exports without an error.
// Seeds: testdata/fuzz/FuzzParseExports and the lines below.
func FuzzParseExports(f *testing.F) {
	for _, s := range []string{
		"/mnt/ide1/myfiles 192.168.178.0/255.255.255.0(rw,no_root_squash,no_all_squash,async)\n",
		"/srv/www -sync,rw server @trusted @external(ro)\n",
		"\"/a b\" \"\" h(rw) -ro\n/x\\134123 *(mp=/a\\040b) \\\n  10.0.0.1(rw)#c\n",
		"/a\r\n\r\n/b host (rw)\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			checkParseExports(t, data)
		}()
		timer := time.NewTimer(10 * time.Second)
		defer timer.Stop()
		select {
		case <-done:
		case <-timer.C:
			t.Fatalf("no answer within 10s for %q", data)
		}
	})
}

func checkParseExports(t *testing.T, data []byte) {
	first, firstProblems := ParseExports(data)
	exports, problems := ParseExports(data)
	if !reflect.DeepEqual(exports, first) || !reflect.DeepEqual(problems, firstProblems) {
		t.Errorf("two parses differ")
		return
	}
	last := bytes.Count(data, []byte("\n")) + 1
	bad := func(what string, l int) bool {
		if l < 1 || l > last {
			t.Errorf("%s on line %d of %d", what, l, last)
			return true
		}
		return false
	}
	failed := false
	for _, p := range problems {
		if bad("problem "+p.Msg, p.Line) {
			return
		}
		failed = failed || !p.Warning
	}
	for _, e := range exports {
		if bad("export "+e.Path, e.Line) {
			return
		}
		for _, c := range e.Clients {
			if bad("client "+c.Host, c.Line) {
				return
			}
		}
	}
	if failed {
		return
	}
	out := FormatExports(exports)
	again, problems := ParseExports(out)
	for _, p := range problems {
		if !p.Warning {
			t.Errorf("formatted file has an error: %v\ninput %q\nformatted %q", p, data, out)
			return
		}
	}
	if !sameExports(exports, again) {
		t.Errorf("round trip changed the exports\ninput %q\nformatted %q\n got %+v\nwant %+v", data, out, again, exports)
	}
}
