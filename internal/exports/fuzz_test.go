package exports

import (
	"bytes"
	"reflect"
	"testing"
	"time"
)

// FuzzParseExports proves, for any input: Parse returns (never panics,
// never hangs), gives the same answer twice and puts every line number
// inside the file.
// Seeds: testdata/fuzz/FuzzParseExports and the lines below.
func FuzzParse(f *testing.F) {
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
			checkParse(t, data)
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

func checkParse(t *testing.T, data []byte) {
	first, firstProblems := Parse(data)
	exports, problems := Parse(data)
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
	for _, p := range problems {
		if bad("problem "+p.Msg, p.Line) {
			return
		}
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
}
