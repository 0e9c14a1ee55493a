// Package settings reads userscript.toml: the profile to use, changes to
// its targets and services, and the engine's knobs. An unknown key is an
// error that names it, so a typo never silently does nothing.
package settings
