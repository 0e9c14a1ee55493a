package overlay

import (
	"context"
	"fmt"
)

// ServiceHealth looks at a service once, the way a restart is proven:
// its process (when the profile names one) and whether a port it is
// configured to listen on (in its live files) accepts. It says whether
// it serves, and how it looked.
func (e *Engine) ServiceHealth(ctx context.Context, name string) (bool, string) {
	svc, ok := e.Profile.Services[name]
	if !ok {
		return false, "no such service in the profile"
	}
	var outs []*Outcome
	for _, t := range e.Profile.Targets {
		if t.Service != name {
			continue
		}
		data, err := e.Sys.ReadFile(e.Sys.Root(t.Path))
		outs = append(outs, &Outcome{Item: &Item{Target: t, Live: data, LiveOK: err == nil}})
	}
	l := e.listenOf(svc, outs, false)
	ob := e.observe(ctx, svc, l)
	if !ob.serving {
		return false, ob.why
	}
	if len(l.ports) == 0 {
		return true, fmt.Sprintf("%s runs", svc.Process)
	}
	if svc.Process != "" && ob.pids != nil {
		return true, fmt.Sprintf("%s runs, and %s accepts", svc.Process, l)
	}
	return true, l.String() + " accepts"
}
