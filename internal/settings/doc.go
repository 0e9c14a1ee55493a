// Package settings reads userscript.toml: the profile to use, changes to
// its targets and services, and the engine's knobs. An unknown key is
// ignored and named (Settings.Unknown), so a typo never silently does
// nothing and never stops the engine at boot.
package settings
