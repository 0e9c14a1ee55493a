package bench

import (
	"bytes"
	"testing"
	"time"
)

// The progress line: a bar, MiB done of the total, the rate so far; and
// nothing at all when the output is not a terminal.
func TestProgress(t *testing.T) {
	got := bar("SMBWrite", 512*MiB, 1000*MiB, 4*time.Second)
	if want := "  SMBWrite       [##########..........] 512/1000 MiB 128.0 MB/s"; got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
	var b bytes.Buffer
	stop := meter(&b, "S1", MiB, func() int64 { return MiB })
	stop()
	if b.Len() != 0 {
		t.Errorf("wrote %q to a non-terminal", b.String())
	}
}
