module github.com/nas-userscript/userscript

go 1.26

require github.com/BurntSushi/toml v1.6.0
