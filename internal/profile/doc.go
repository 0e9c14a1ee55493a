// Package profile describes devices: which targets userscript may write
// (the allow-list), how each is validated, and which service each belongs
// to. Profiles are built in (nas4220b, dsm, bananapi) and can be changed
// or extended by userscript.toml.
package profile
