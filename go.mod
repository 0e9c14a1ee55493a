module github.com/nas-userscript/userscript

go 1.26

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/cloudsoda/go-smb2 v0.0.0-20260918041005-0c5d69b69701
	github.com/fsnotify/fsnotify v1.10.1
	github.com/jlaffaye/ftp v0.2.4
	github.com/kardianos/service v1.3.0
	github.com/pmezard/go-difflib v1.0.0
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/net v0.30.0
	golang.org/x/sys v0.34.0
)

require (
	github.com/cloudsoda/sddl v0.0.0-20250224235906-926454e91efc // indirect
	github.com/geoffgarside/ber v1.1.0 // indirect
	github.com/hashicorp/go-uuid v1.0.3 // indirect
	github.com/jcmturner/aescts/v2 v2.0.0 // indirect
	github.com/jcmturner/dnsutils/v2 v2.0.0 // indirect
	github.com/jcmturner/gofork v1.7.6 // indirect
	github.com/jcmturner/goidentity/v6 v6.0.1 // indirect
	github.com/jcmturner/gokrb5/v8 v8.4.4 // indirect
	github.com/jcmturner/rpc/v2 v2.0.3 // indirect
	golang.org/x/crypto v0.28.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
