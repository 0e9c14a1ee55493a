// Package scenario runs the shared two-engine scenario suite
// (testdata/scenarios/*.txtar) against the Go engine and the sh engine, so
// that the two cannot drift apart silently.
//
// A scenario is a txtar archive. Its files are the inputs: root/... are
// the firmware's files under the device root (and what a `reboot`
// restores; a kernel's /proc and /sys are faked the same way, and `mkdir`
// makes a folder where a kernel file should refuse a write), conf.d/... are
// the user's sources, and any other file (want/..., edit/...) is there for
// commands to use. Its comment is a script, one command a line; `#` starts
// a comment line:
//
//	profile NAME                 profile to use (default nas4220b)
//	validators TOOL...           put these host tools (testparm, proftpd) on PATH
//	unsupported ENGINE REASON    ENGINE (sh or go) cannot run this scenario;
//	                             it is skipped with REASON, visibly
//	[ENGINE] COMMAND             run COMMAND for that engine only
//	apply [EXIT]                 run the engine once (and check its exit code)
//	cmp PATH FILE                PATH holds exactly the archive's FILE
//	cpwin FILE PATH              copy FILE to PATH with a BOM and CRLF line ends
//	cputf16[be] FILE PATH        copy FILE to PATH as Notepad's "Unicode" (UTF-16
//	                             LE, or BE) save: a byte order mark, CRLF
//	cp FILE PATH                 copy the archive's FILE to PATH
//	rm PATH | mkdir PATH         remove / make a folder
//	symlink PATH TARGET          make PATH a symbolic link to TARGET
//	sparse PATH SIZE             make a sparse file of SIZE bytes (K, M, G)
//	status NAME WORD...          conf.d/NAME.status (CRLF) says status: WORD...
//	cmpstatus NAME FILE          conf.d/NAME.status (CRLF), without its time:
//	                             line, is exactly FILE (LF)
//	[!] grep [-count=N] REGEXP PATH
//	                             PATH has (or has not) a line matching REGEXP
//	                             (exactly N matches); testscript's order
//	[!] exists PATH              PATH exists (or not); links are not followed
//	restarts ['LINE'...]         exactly these restart calls (any order) ran in
//	                             the last apply; none when no LINE is given
//	stamp PATH / unchanged PATH  PATH was not rewritten since the stamp
//	reboot                       the firmware restores root/... from the archive
//	service NAME [sessions]      NAME's restart script runs a real daemon on
//	                             $PORT named $PROC; with sessions, one process
//	                             per client that outlives the master (Samba 3)
//	start NAME [late DURATION]   start it, as the firmware's boot does; with
//	                             late its daemon runs at once but listens only
//	                             DURATION later (not waited for): still starting
//	connect                      open a client session to it (held to the end)
//	fulldisk                     the app dir's data disk is full: no file or
//	                             folder can be made on it (a tmpfs; needs root)
//
// PATH starts with root/ (the device root), conf.d/ or state/ (in the app
// dir). Both engines run with a PATH that holds only the BusyBox applets
// the sh engine may use plus the scenario's validators; the rc.d scripts
// of the profile's services are stubs that log their calls.
package scenario
