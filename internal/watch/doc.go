// Package watch is the live watcher behind `userscript run`: it watches
// the conf.d directory (never single files: editors save by rename) and
// the targets' directories with inotify, waits until conf.d is quiet,
// then runs one apply for everything that changed. It re-establishes its
// watches when conf.d or the data disk goes away and comes back, rescans
// on overflow, and does nothing at all while nothing changes.
package watch
