module github.com/nas-userscript/userscript

go 1.26

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/fsnotify/fsnotify v1.10.1
	github.com/kardianos/service v1.3.0
	github.com/pmezard/go-difflib v1.0.0
	github.com/rogpeppe/go-internal v1.16.0
)

require (
	golang.org/x/sys v0.34.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
