// Package livetest holds no code, only the end-to-end tests of the live
// watcher against real daemons: smbd and proftpd on loopback ports, run
// by the simulated firmware's rc.d scripts, checked with smbclient and an
// FTP connection, while `userscript run` applies edits, refuses broken
// ones and rolls back configs that leave a daemon unable to serve.
package livetest
