package scenario

import (
	"testing"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

// The fake daemon's port masked inside a hash made the engines' equal
// state/written differ (TestScenarios/replace failed when the port was
// 45181 and a hash held "045181").
func TestMaskLeavesHashes(t *testing.T) {
	w := &World{Device: &firmsim.Device{Root: "/tmp/w/root"}, Port: 45181, Proc: "fd45181"}
	in := "045181a3521f15d0fd45181e\nsmb ports = 45181\nprocess fd45181 under /tmp/w/root/etc\n"
	want := "045181a3521f15d0fd45181e\nsmb ports = $PORT\nprocess $PROC under $ROOT/etc\n"
	if got := w.mask(in); got != want {
		t.Errorf("mask:\n%q\nwant\n%q", got, want)
	}
}
