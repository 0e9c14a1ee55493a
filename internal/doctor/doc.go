// Package doctor looks at an installation the way an owner without a
// shell needs it looked at: which engine and version run, which profile
// was detected, where each target's content comes from, whether the
// services serve, how much room the data disk has, whether guests can
// write conf.d through the live smb.conf, and which files in conf.d are
// not used. `userscript doctor` prints it; every start writes it to
// conf.d/DOCTOR.txt (CRLF, for Notepad).
package doctor
