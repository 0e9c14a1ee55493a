// Package merge applies a fragment, conf.d/NAME.merge, onto a target
// key by key, so that a NAS owner can say "in [global], socket options =
// TCP_NODELAY; add share [media]; remove write cache size" and have
// exactly that done to whatever the firmware wrote.
//
// A merge is applied onto the base, or onto the replacement conf.d/NAME
// when there is one, and before any conf.d/NAME.add. Every line the
// fragment does not touch keeps its text, place, comments and
// indentation. Merging the same fragment twice gives the same file as
// merging it once. Comments and blank lines in a fragment are for its
// reader; they are never copied.
//
// # The rules for every format
//
// docs/FORMATS.md states every rule, precisely enough for the sh engine
// to follow; in short:
//
//   - A line "key value" (in the format's own spelling) sets the key:
//     every line that sets that key in that place gets the new value,
//     keeping its indentation and the way its key is written; where the
//     format has one line per key (smb.conf, exports) the first line of
//     each block gets it and the others go. When there is none, the
//     line is added at the end of that place, before the comments and
//     blank lines that end it.
//   - A line starting with "!" deletes: "!key" removes every line that
//     sets the key there; "!" before a whole line removes what that line
//     would replace. "![share]" and "!<Block args>" remove a whole
//     section or block. A deletion that removes nothing is a warning
//     (MergeWarn), never silent: it is often a typo.
//   - A deletion of a section or block followed by the same section or
//     block replaces it: its old lines go, the fragment's lines are put
//     in, where it was.
//   - When the fragment speaks of one key twice, the last line wins.
//   - Mistakes are reported with the fragment's name and line, one a
//     line: "smb.conf.merge line 3: a key outside any section: put it
//     under [global] or the share's [name]". Nothing is merged then.
//
// # smb.conf (Samba)
//
//	[global]
//	   socket options = TCP_NODELAY
//	   getwd cache = yes
//	   !write cache size
//	[media]
//	   path = /mnt/ide1/media
//	   read only = no
//	![printers]
//
// Keys are compared the way Samba compares them: case and white space do
// not count ("getwd cache" is "GetWDCache"), and a synonym is the same
// parameter (sambasyn.go: "writable" is "read only" inverted, "public"
// is "guest ok"): the fragment's line replaces every line of the
// parameter in the section, under any name. Section names do not count
// case; [global] and [globals] are the global section, and the keys
// before the first section of the file belong to it. Every key in a
// fragment must be under a section. A key set in a section that
// appears twice is changed in both; a new key goes into the first. New
// sections are added at the end of the file, but a new [global] goes
// before the first share, so that its share defaults reach the shares.
// "include = FILE" may appear many times: each include is its own key,
// "!include" removes them all, and other new keys go before the first
// include of their section (the included file may end in a share).
// Comments start with "#" or ";"; a line ending with "\" goes on on the
// next line.
//
// # proftpd.conf (ProFTPD)
//
//	IdentLookups off
//	UseReverseDNS off
//	!WtmpLog
//	<Global>
//	  AllowOverwrite on
//	</Global>
//	!<Anonymous ~ftp>
//
// Directives are set at the top level or inside blocks written as in
// the file: <Global>, <Directory /path>, <Anonymous ~ftp>, <VirtualHost
// addr>, <Limit WRITE>, <IfModule mod_x.c> … A block is matched by its
// name (case does not count) and its arguments (quotes do not count;
// for <Limit> and <IfModule> case does not count either, and "mod_tls"
// is "mod_tls.c"). A block the file lacks is added, with the lines
// the fragment puts in it. Directive names do not count case.
//
// <IfModule>, <IfDefine> and <IfVersion> only decide whether their lines
// are read, so a directive is also found inside them: "IdentLookups off"
// at the top level changes the IdentLookups inside the firmware's
// "<IfModule mod_ident.c>" and keeps the guard around it. Other blocks
// (<IfUser>, <Global> …) are places of their own.
//
// A fragment block that matches two blocks of the file that are not
// guards (a firmware's two <VirtualHost 0.0.0.0>, one inside <IfModule
// mod_sftp.c>) is refused with both named: "<VirtualHost 0.0.0.0>[2]"
// (the second, counted from the top of the file) or the <IfModule>
// around it in the fragment says which. A directive needs a value, but
// for AllowAll and DenyAll.
//
// Most directives appear once per place and are matched by name. These
// repeat, and are matched by name and first argument: Include,
// LoadModule, DefaultRoot, DefaultChdir, SetEnv, UnsetEnv, UserAlias,
// ExtendedLog, LogFormat, SQLNamedQuery, SQLLog, SFTPHostKey,
// ModuleControlsACLs, ControlsACLs, AdminControlsACLs, RewriteMap,
// ExecOnCommand, ExecOnEvent ("DefaultRoot ~ users" replaces
// "DefaultRoot ~ !adm", and adds to "DefaultRoot /srv"). These repeat and
// are matched by the whole line, so a line is only added when it is not
// there yet: Allow, Deny, AllowUser, DenyUser, AllowGroup, DenyGroup,
// AllowClass, DenyClass, AllowAll, DenyAll, Bind, ServerAlias,
// RewriteRule, RewriteCondition, Define, Class. A new repeating line goes
// after the last one of its name. "!Include" removes every Include,
// "!Include /etc/proftpd/tls.conf" only that one. Comments start with
// "#"; a line whose last character is "\" goes on on the next line.
//
// # exports (NFS)
//
//	/mnt/ide1/public 192.168.178.0/255.255.255.0(rw,no_root_squash,async) 10.0.0.5(ro)
//	!/mnt/ide1/old
//
// A line is keyed by its path: quotes and \040 escapes are read the way
// exportfs reads them ("/mnt/my disk" is /mnt/my\040disk) and a trailing
// "/" does not count. The line replaces every line for that path, all
// of its clients at once, and is written once, where the first was; a
// new path is added at the end.
//
// # sysctl.conf, vsftpd.conf and other key = value files (keyvalue)
//
//	net.core.rmem_max = 8738000
//	vm.min_free_kbytes=65536
//	!net.ipv4.tcp_timestamps
//
// Keys are compared as written, except that "/" is ".", as sysctl reads
// it, and sysctl's "-" before a key (ignore errors) does not count. A
// new line uses the separator the file uses ("=" or " = "), because
// some programs, vsftpd among them, allow no spaces around "=".
// Comments start with "#" or ";".
package merge
