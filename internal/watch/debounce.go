package watch

import (
	"context"
	"time"
)

// Quiet waits for quiescence: after a first event it waits until no event
// came for Min, but never longer than Max from the first event during a
// continuous burst. consul-template calls this wait min/max.
type Quiet struct {
	Min, Max time.Duration
}

// Defaults for Quiet.
const (
	DefaultMin = 300 * time.Millisecond
	DefaultMax = 3 * time.Second
)

// Run reads events and sends one value on fire for every quiet burst.
// It returns when ctx ends or events is closed.
func (q Quiet) Run(ctx context.Context, events <-chan struct{}, fire chan<- struct{}) {
	for {
		// Idle: no timer runs until something happens.
		select {
		case <-ctx.Done():
			return
		case _, ok := <-events:
			if !ok {
				return
			}
		}
		deadline := time.NewTimer(q.Max)
		quiet := time.NewTimer(q.Min)
	burst:
		for {
			select {
			case <-ctx.Done():
				deadline.Stop()
				quiet.Stop()
				return
			case _, ok := <-events:
				if !ok {
					deadline.Stop()
					quiet.Stop()
					return
				}
				quiet.Reset(q.Min)
			case <-quiet.C:
				break burst
			case <-deadline.C:
				break burst
			}
		}
		deadline.Stop()
		quiet.Stop()
		select {
		case fire <- struct{}{}:
		case <-ctx.Done():
			return
		}
	}
}
