package bench

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A results file written by WriteCSV reads back as the same results
// (rounded as the CSV rounds them), with the columns in order.
func TestCSVRoundTrip(t *testing.T) {
	in := []Result{{Time: time.Date(2026, 12, 2, 12, 30, 0, 0, time.UTC), Device: "nas", Engine: "go", Version: "1.2", Generation: "4",
		Test: "S1", Run: 2, Bytes: 1000 * MiB, Seconds: 73.0004, MBPerS: 13.6986, Command: `dd if=/dev/zero of="a,b" bs=1M count=1000; sync`,
		Source: "/dev/zero", Destination: "/dev/sda1", Filesystem: "ext3"}}
	var b bytes.Buffer
	if err := WriteCSV(&b, in); err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(b.String(), "\n")
	if head != "time,device,engine,version,generation,test,run,bytes,seconds,mb_per_s,command,source,destination,filesystem" {
		t.Fatalf("header %q", head)
	}
	out, err := ReadCSV(&b, "x.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := in[0]
	want.Seconds, want.MBPerS = 73, 13.70
	if len(out) != 1 || out[0] != want {
		t.Fatalf("read back %+v\nwant %+v", out, want)
	}
}

// A file that is not ours, or has a bad value, is refused with its name
// and line and what is wrong.
func TestReadCSVErrors(t *testing.T) {
	head := strings.Join(Columns, ",") + "\n"
	for _, c := range []struct{ name, data, want string }{
		{"empty", "", "x.csv: empty file"},
		{"other csv", "a,b\n1,2\n", "x.csv: not a userscript bench CSV"},
		{"bad rate", head + "2026-12-02T12:30:00Z,nas,sh,1,-,S1,1,100,1.00,fast,cmd,a,b,ext3\n", `x.csv: line 2: mb_per_s "fast"`},
		{"bad time", head + "yesterday,nas,sh,1,-,S1,1,100,1.00,1.00,cmd,a,b,ext3\n", `x.csv: line 2: time "yesterday"`},
		{"short row", head + "2026-12-02T12:30:00Z,nas\n", "x.csv: record on line 2: wrong number of fields"},
	} {
		_, err := ReadCSV(strings.NewReader(c.data), "x.csv")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// The .json holds the run's metadata once and each result rounded like
// the CSV; empty lists are [] (the sh engine writes the same).
func TestJSONShape(t *testing.T) {
	rep := &Report{Meta: Meta{Device: "nas", Engine: "go", Version: "1", Generation: "-"}, Size: MiB, Runs: 1,
		Results: []Result{{Time: time.Date(2026, 12, 2, 12, 30, 0, 5, time.UTC), Test: "S1", Run: 1, Bytes: MiB, Seconds: 0.12345, MBPerS: 8.1004}}}
	var b bytes.Buffer
	if err := WriteJSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	r := got["results"].([]any)[0].(map[string]any)
	if r["time"] != "2026-12-02T12:30:00Z" || r["seconds"] != 0.123 || r["mb_per_s"] != 8.10 || r["device"] != nil {
		t.Errorf("result %v", r)
	}
	if got["device"] != "nas" || got["skipped"] == nil || got["warnings"] == nil {
		t.Errorf("report %s", b.String())
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1000M": 1000 * MiB, "1M": MiB, "2G": 2 << 30, "3g": 3 << 30} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "1000", "1.5G", "0M", "-1M", "1T", "M", "9999999G"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}
