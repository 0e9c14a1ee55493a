package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// BenchmarkEditToLive measures how long a save in conf.d takes to be live
// on the device with the default quiet time (300 ms), excluding the
// service's own restart (the restart script only logs). It reports the
// median and the 99th percentile.
//
//	go test -run '^$' -bench EditToLive -benchtime 40x ./internal/watch/
func BenchmarkEditToLive(b *testing.B) {
	t := &testing.T{}
	n := newNAS(t)
	n.t = t
	os.WriteFile(n.conf("a.conf"), []byte("v0\n"), 0o644)
	n.start(Quiet{Min: DefaultMin, Max: DefaultMax})
	defer n.cancel()
	live := filepath.Join(n.root, "etc/a.conf")
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		want := fmt.Sprintf("v%d\n", i+1)
		start := time.Now()
		os.WriteFile(n.conf("a.conf"), []byte(want), 0o644)
		for {
			data, _ := os.ReadFile(live)
			if string(data) == want {
				break
			}
			time.Sleep(time.Millisecond)
		}
		lat = append(lat, time.Since(start))
		time.Sleep(50 * time.Millisecond)
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(lat[(len(lat)*99)/100].Milliseconds()), "p99-ms")
}
