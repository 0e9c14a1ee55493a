package watch

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// fires runs Quiet over a scripted list of event times and returns the
// times it fired, on synctest's fake clock.
func fires(t *testing.T, q Quiet, at []time.Duration, until time.Duration) []time.Duration {
	t.Helper()
	var got []time.Duration
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		events := make(chan struct{})
		fire := make(chan struct{})
		start := time.Now()
		done := make(chan struct{})
		go func() { q.Run(ctx, events, fire); close(done) }()
		defer func() { cancel(); <-done; close(fire) }()
		go func() {
			for range fire {
				got = append(got, time.Since(start))
			}
		}()
		for _, d := range at {
			time.Sleep(d - time.Since(start))
			events <- struct{}{}
		}
		time.Sleep(until - time.Since(start))
		synctest.Wait()
	})
	return got
}

func TestQuietSingleEvent(t *testing.T) {
	got := fires(t, Quiet{Min: 300 * time.Millisecond, Max: 3 * time.Second}, []time.Duration{time.Second}, 10*time.Second)
	if len(got) != 1 || got[0] != 1300*time.Millisecond {
		t.Fatalf("fired at %v, want once at 1.3s (event + min)", got)
	}
}

// A short burst fires once, min after its last event.
func TestQuietBurst(t *testing.T) {
	var at []time.Duration
	for i := 0; i < 10; i++ {
		at = append(at, time.Duration(i)*50*time.Millisecond)
	}
	got := fires(t, Quiet{Min: 300 * time.Millisecond, Max: 3 * time.Second}, at, 10*time.Second)
	if len(got) != 1 || got[0] != 750*time.Millisecond {
		t.Fatalf("fired at %v, want once at 0.75s", got)
	}
}

// A continuous burst (an event every 100 ms for 10 s) never goes quiet:
// it fires every max, not never.
func TestQuietContinuousBurstFiresAtMax(t *testing.T) {
	var at []time.Duration
	for d := time.Duration(0); d < 10*time.Second; d += 100 * time.Millisecond {
		at = append(at, d)
	}
	got := fires(t, Quiet{Min: 300 * time.Millisecond, Max: 3 * time.Second}, at, 20*time.Second)
	// Each burst ends at its max (3 s after its first event, which is the
	// event right at the previous fire); the last ends quietly at 9.9+0.3.
	want := []time.Duration{3 * time.Second, 6 * time.Second, 9 * time.Second, 10200 * time.Millisecond}
	if len(got) != len(want) {
		t.Fatalf("fired at %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("fired at %v, want %v", got, want)
		}
	}
}

// Separate edits fire separately.
func TestQuietSeparateEdits(t *testing.T) {
	got := fires(t, Quiet{Min: 300 * time.Millisecond, Max: 3 * time.Second}, []time.Duration{0, 5 * time.Second}, 10*time.Second)
	if len(got) != 2 || got[0] != 300*time.Millisecond || got[1] != 5300*time.Millisecond {
		t.Fatalf("fired at %v", got)
	}
}
