package overlay

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/nas-userscript/userscript/internal/profile"
	"github.com/nas-userscript/userscript/internal/system"
)

// BenchmarkApply measures one apply against the number of targets: every
// target changed (written, fsynced, recorded) and nothing changed (the
// idle re-apply a boot or a watcher event costs). The per-target cost
// should stay flat as the count grows.
//
//	go test -run '^$' -bench Apply -benchtime 5x ./internal/overlay/
func BenchmarkApply(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		for _, changed := range []bool{true, false} {
			name := fmt.Sprintf("targets=%d/changed=%v", n, changed)
			b.Run(name, func(b *testing.B) {
				eng, app := benchEngine(b, n)
				ctx := context.Background()
				if _, err := eng.Apply(ctx); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if changed {
						b.StopTimer()
						for t := 0; t < n; t++ {
							os.WriteFile(filepath.Join(app, "conf.d", fmt.Sprintf("t%04d.conf", t)), fmt.Appendf(nil, "value %d %d\n", t, i), 0o644)
						}
						b.StartTimer()
					}
					if _, err := eng.Apply(ctx); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/target")
			})
		}
	}
}

func benchEngine(b testing.TB, n int) (*Engine, string) {
	root, app := b.TempDir(), b.TempDir()
	os.MkdirAll(filepath.Join(app, "conf.d"), 0o755)
	os.MkdirAll(filepath.Join(root, "etc/many"), 0o755)
	p := &profile.Profile{Name: "bench", Services: map[string]profile.Service{}}
	for t := 0; t < n; t++ {
		name := fmt.Sprintf("t%04d.conf", t)
		p.Targets = append(p.Targets, profile.Target{Name: name, Path: "/etc/many/" + name})
		os.WriteFile(filepath.Join(root, "etc/many", name), []byte("rom\n"), 0o644)
		os.WriteFile(filepath.Join(app, "conf.d", name), []byte("mine\n"), 0o644)
	}
	profile.Sort(p)
	return &Engine{Sys: system.NewReal(root), Profile: p, App: app, Keep: 20}, app
}
