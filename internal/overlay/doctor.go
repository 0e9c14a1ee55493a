package overlay

import (
	"context"
	"fmt"
)

// What ServiceHealth can say of a service.
const (
	Healthy    = "healthy"
	NotServing = "NOT SERVING"
	CannotTell = "cannot tell" // no process to look for and no port to dial
)

// ServiceHealth looks at a service once, the way a restart is proven:
// its process (when the profile names one) and whether a port it is
// configured to listen on (in its live files) accepts. It says Healthy,
// NotServing or CannotTell, and how it looked.
func (e *Engine) ServiceHealth(ctx context.Context, name string) (string, string) {
	svc, ok := e.Profile.Services[name]
	if !ok {
		return CannotTell, "no such service in the profile"
	}
	l := e.listenOf(svc, e.liveOf(name), false)
	ob := e.observe(ctx, svc, l)
	switch {
	case !ob.serving && len(l.ports) == 0 && ob.pids == nil:
		return CannotTell, ob.why
	case !ob.serving:
		return NotServing, ob.why
	case len(l.ports) == 0:
		return Healthy, fmt.Sprintf("%s runs", svc.Process)
	case svc.Process != "" && ob.pids != nil:
		return Healthy, fmt.Sprintf("%s runs, and %s accepts", svc.Process, l)
	}
	return Healthy, l.String() + " accepts"
}
