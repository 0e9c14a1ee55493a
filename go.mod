module github.com/nas-userscript/userscript

go 1.26
