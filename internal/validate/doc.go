// Package validate checks a staged candidate config before it is written
// over a live system file: smb.conf with testparm, proftpd.conf with
// proftpd -t and exports(5) with our own parser plus exportfs -ra.
//
// Every validator process is started by argv (never through a shell), with
// a timeout, and recorded in Result.Execs. A validator that cannot run on
// this host (not installed, missing lock directories, no nfsd) leaves the
// candidate not validated, never refused: only a problem in the file
// refuses it. proftpd -t and exportfs -ra write files as a side effect, so
// they run in a private mount namespace of one locked OS thread, with a
// tmpfs over /run (proftpd) or the candidate bound over /etc/exports and a
// tmpfs over /var/lib/nfs (exportfs).
package validate
