// Package hostile holds no code, only the hostile-input corpus: conf.d
// sits on a share anyone on the LAN may write, and both engines run as
// root, so every case here is something a LAN user (or a careless owner)
// could put there. Each case runs against both engines on its own fake
// IB-NAS4220-B root (a case only one engine can run is skipped visibly
// for the other, with the reason), with a 60 s limit per engine run, and
// is held to the same invariants:
//
//   - nothing changes outside the three targets, ROOT/restarts.log, the
//     app's state/ and the conf.d/*.status files (the root, the app dir
//     and a folder outside both are hashed before and after);
//   - no byte of a secret (ROOT/etc/shadow and friends hold "TOPSECRET")
//     reaches conf.d/, state/, a target, the engine's output or its
//     staging folder;
//   - no engine run hangs, crashes or runs a command named in a file name
//     or a source (canary folders must not appear);
//   - the hostile source is reported (its status file or the log names it);
//   - a valid source next to it is still applied and its service restarted.
//
// Cases that are engine bugs awaiting a decision are marked KNOWN BUG and
// skipped with the failures they show; a marked case that passes fails, so
// the mark is removed once the engine is fixed.
package hostile
