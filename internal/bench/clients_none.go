//go:build noclients

// The NAS packages are built with -tags noclients: the SMB and FTP
// clients of `bench net` are for the owner's PC, and on the device they
// would add some 2.5 MB (TLS, Kerberos) to a 4.5 MB binary.

package bench

import "errors"

var errNoClients = errors.New("this build has no SMB or FTP client (they are in the PC version of userscript): mount the share and give its path (--smb PATH), or run bench net from your PC")

func newSMB(raw, name string) (endpoint, error) { return nil, errNoClients }

func newFTP(raw, name string) (endpoint, error) { return nil, errNoClients }
