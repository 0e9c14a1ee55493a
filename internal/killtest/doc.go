// Package killtest holds no code, only the power-cut test: both engines
// are killed with SIGKILL at random moments during apply and rollback,
// again and again, and after every kill the targets must be the old or
// the new content, the history readable, and the next run must converge.
package killtest
