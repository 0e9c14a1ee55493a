# shellcheck shell=sh
# userscript sh engine: the fixed text of conf.d/STATUS.html, one function
# a template: pt_NAME sets T to it in the language PG_LANG, each {{name}}
# of the template the value of pv_name. GENERATED from
# internal/statuspage/templates.go by `go test ./internal/statuspage -update`:
# do not edit. Sourced by page.sh.
# shellcheck disable=SC2154,SC2034

pt_head() {
	case $PG_LANG in
	de) T="<!DOCTYPE html>
<html lang=\"${pv_lang}\">
<head>
<meta charset=\"utf-8\">
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">
<title>userscript: Status</title>
<style>
body{font-family:\"Segoe UI\",Helvetica,Arial,sans-serif;color:#1a1a1a;background:#fff;margin:0 auto;max-width:62em;padding:0 1em 2em;line-height:1.4}
h1{font-size:1.5em;margin:.8em 0 .4em}
h2{font-size:1.15em;margin:1.4em 0 .4em;border-bottom:1px solid #ccc}
.banner{font-size:1.2em;font-weight:bold;padding:.6em .8em;border:2px solid;border-radius:4px}
.b-ok,.b-empty{background:#e6f4e6;border-color:#2e7d32;color:#1b5e20}
.b-need,.b-full{background:#fdecea;border-color:#c62828;color:#8e0000}
.b-off,.b-safe{background:#fff4e0;border-color:#e08a00;color:#6d4000}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;vertical-align:top;padding:.35em .5em;border-bottom:1px solid #ddd}
th{background:#f2f2f2}
td p{margin:0 0 .3em}
.word{font-weight:bold;white-space:nowrap}
.s-ok .word,.s-not-validated .word,.r-ok .result{color:#1b5e20}
.s-refused .word,.s-rejected .word,.s-failed .word,.r-rejected .result,.r-failed .result{color:#b71c1c}
.s-unknown .word,.s-held .word,.s-other .word,.r-pending .result{color:#8a5300}
.file{min-width:9em}
.s-disabled .word{color:#555}
.tag{display:inline-block;font-size:.8em;font-weight:bold;border:1px solid #8a5300;color:#8a5300;border-radius:3px;padding:0 .3em;margin-top:.2em}
.line code{background:#f5f5f5;padding:0 .2em;word-break:break-all}
.since,.note,.foot{color:#555;font-size:.9em}
td,li{word-wrap:break-word;overflow-wrap:anywhere}
.chart{max-width:100%;height:auto;border:1px solid #ddd}
@media print{body{max-width:none}.banner{border-width:3px}a{color:#000}}
</style>
</head>
<body>
<h1>userscript auf diesem NAS</h1>
" ;;
	*) T="<!DOCTYPE html>
<html lang=\"${pv_lang}\">
<head>
<meta charset=\"utf-8\">
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">
<title>userscript: status</title>
<style>
body{font-family:\"Segoe UI\",Helvetica,Arial,sans-serif;color:#1a1a1a;background:#fff;margin:0 auto;max-width:62em;padding:0 1em 2em;line-height:1.4}
h1{font-size:1.5em;margin:.8em 0 .4em}
h2{font-size:1.15em;margin:1.4em 0 .4em;border-bottom:1px solid #ccc}
.banner{font-size:1.2em;font-weight:bold;padding:.6em .8em;border:2px solid;border-radius:4px}
.b-ok,.b-empty{background:#e6f4e6;border-color:#2e7d32;color:#1b5e20}
.b-need,.b-full{background:#fdecea;border-color:#c62828;color:#8e0000}
.b-off,.b-safe{background:#fff4e0;border-color:#e08a00;color:#6d4000}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;vertical-align:top;padding:.35em .5em;border-bottom:1px solid #ddd}
th{background:#f2f2f2}
td p{margin:0 0 .3em}
.word{font-weight:bold;white-space:nowrap}
.s-ok .word,.s-not-validated .word,.r-ok .result{color:#1b5e20}
.s-refused .word,.s-rejected .word,.s-failed .word,.r-rejected .result,.r-failed .result{color:#b71c1c}
.s-unknown .word,.s-held .word,.s-other .word,.r-pending .result{color:#8a5300}
.file{min-width:9em}
.s-disabled .word{color:#555}
.tag{display:inline-block;font-size:.8em;font-weight:bold;border:1px solid #8a5300;color:#8a5300;border-radius:3px;padding:0 .3em;margin-top:.2em}
.line code{background:#f5f5f5;padding:0 .2em;word-break:break-all}
.since,.note,.foot{color:#555;font-size:.9em}
td,li{word-wrap:break-word;overflow-wrap:anywhere}
.chart{max-width:100%;height:auto;border:1px solid #ddd}
@media print{body{max-width:none}.banner{border-width:3px}a{color:#000}}
</style>
</head>
<body>
<h1>userscript on this NAS</h1>
" ;;
	esac
}

pt_ban_ok() {
	case $PG_LANG in
	de) T="<p class=\"banner b-ok\" id=\"banner\">Alles in Ordnung: jede deiner Dateien in conf.d ist aktiv.</p>
" ;;
	*) T="<p class=\"banner b-ok\" id=\"banner\">All fine: every file of yours in conf.d is live.</p>
" ;;
	esac
}

pt_ban_empty() {
	case $PG_LANG in
	de) T="<p class=\"banner b-empty\" id=\"banner\">Alles in Ordnung: noch nichts anzuwenden. Kopiere eine Datei nach conf.d, um sie zu behalten (siehe conf.d/README.txt).</p>
" ;;
	*) T="<p class=\"banner b-empty\" id=\"banner\">All fine: nothing to apply yet. Copy a file into conf.d to keep it (see conf.d/README.txt).</p>
" ;;
	esac
}

pt_ban_need() {
	case $PG_LANG in
	de) T="<p class=\"banner b-need\" id=\"banner\">Etwas braucht dich (${pv_n}): siehe unten.</p>
" ;;
	*) T="<p class=\"banner b-need\" id=\"banner\">Something needs you (${pv_n}): see below.</p>
" ;;
	esac
}

pt_ban_off() {
	case $PG_LANG in
	de) T="<p class=\"banner b-off\" id=\"banner\">userscript ist aus: conf.d/${pv_name} existiert, daher wird nichts angewendet. Lösche die Datei, um userscript wieder einzuschalten.</p>
" ;;
	*) T="<p class=\"banner b-off\" id=\"banner\">userscript is off: conf.d/${pv_name} exists, so nothing is applied. Delete it to switch userscript on again.</p>
" ;;
	esac
}

pt_ban_safe() {
	case $PG_LANG in
	de) T="<p class=\"banner b-safe\" id=\"banner\">Abgesicherter Modus: userscript wendet nichts an. ${pv_why} Lösche conf.d/${pv_name}, um weiterzumachen.</p>
" ;;
	*) T="<p class=\"banner b-safe\" id=\"banner\">Safe mode: userscript applies nothing. ${pv_why} Delete conf.d/${pv_name} to go on.</p>
" ;;
	esac
}

pt_ban_full() {
	case $PG_LANG in
	de) T="<p class=\"banner b-full\" id=\"banner\">Die Datenplatte ist voll: nichts Neues wird angewendet, bis wieder Platz ist.</p>
" ;;
	*) T="<p class=\"banner b-full\" id=\"banner\">The data disk is full: nothing new is applied until there is room.</p>
" ;;
	esac
}

pt_files() {
	case $PG_LANG in
	de) T="<h2>Deine Dateien</h2>
<table id=\"files\">
<tr><th>Status</th><th>Datei</th><th>Was geschah, und was zu tun ist</th><th>Aktive Generation</th></tr>
" ;;
	*) T="<h2>Your files</h2>
<table id=\"files\">
<tr><th>Status</th><th>File</th><th>What happened, and what to do</th><th>Live generation</th></tr>
" ;;
	esac
}

pt_row() {
	T="<tr class=\"${pv_class}\"><td class=\"word\">${pv_word}${pv_heldhtml}</td><td class=\"file\">${pv_file}</td><td class=\"what\">${pv_whathtml}</td><td class=\"gen\">${pv_gen}</td></tr>
"
}

pt_reason() {
	T="<p class=\"reason\">${pv_reason}</p>"
}

pt_line() {
	case $PG_LANG in
	de) T="<p class=\"line\">Deine Zeile: <code>${pv_line}</code></p>" ;;
	*) T="<p class=\"line\">Your line: <code>${pv_line}</code></p>" ;;
	esac
}

pt_todo() {
	case $PG_LANG in
	de) T="<p class=\"todo\"><strong>Was zu tun ist:</strong> ${pv_todo}</p>" ;;
	*) T="<p class=\"todo\"><strong>What to do:</strong> ${pv_todo}</p>" ;;
	esac
}

pt_since() {
	case $PG_LANG in
	de) T="<p class=\"since\">seit ${pv_time}</p>" ;;
	*) T="<p class=\"since\">since ${pv_time}</p>" ;;
	esac
}

pt_held() {
	case $PG_LANG in
	de) T="<br><span class=\"tag\">zurückgehalten, bis du sie änderst</span>" ;;
	*) T="<br><span class=\"tag\">held until you edit it</span>" ;;
	esac
}

pt_nofiles() {
	case $PG_LANG in
	de) T="<p id=\"files\">Noch keine deiner Dateien in conf.d hat einen Status.</p>
" ;;
	*) T="<p id=\"files\">No file of yours in conf.d has a status yet.</p>
" ;;
	esac
}

pt_files_end() {
	T="</table>
"
}

pt_hist() {
	case $PG_LANG in
	de) T="<h2>Verlauf, neueste zuerst</h2>
<table id=\"history\">
<tr><th>Generation</th><th>Zeit</th><th>Art</th><th>Ergebnis</th><th>Geändert</th><th>Neu gestartet</th></tr>
" ;;
	*) T="<h2>History, newest first</h2>
<table id=\"history\">
<tr><th>Generation</th><th>Time</th><th>Kind</th><th>Result</th><th>Changed</th><th>Restarted</th></tr>
" ;;
	esac
}

pt_hrow() {
	T="<tr class=\"r-${pv_result}\"><td>${pv_id}</td><td>${pv_time}</td><td>${pv_kind}</td><td class=\"result\">${pv_result}${pv_rejhtml}${pv_notehtml}</td><td>${pv_changed}</td><td>${pv_restarted}</td></tr>
"
}

pt_hnote() {
	T="<br><span class=\"note\">${pv_note}</span>"
}

pt_hrej() {
	case $PG_LANG in
	de) T="<br>abgelehnt: ${pv_rejected}" ;;
	*) T="<br>rejected: ${pv_rejected}" ;;
	esac
}

pt_nohist() {
	case $PG_LANG in
	de) T="<h2>Verlauf</h2>
<p id=\"history\">Noch keine Änderung aufgezeichnet.</p>
" ;;
	*) T="<h2>History</h2>
<p id=\"history\">No change recorded yet.</p>
" ;;
	esac
}

pt_hist_end() {
	T="</table>
"
}

pt_doc() {
	case $PG_LANG in
	de) T="<h2>Der Doktor hat gefunden</h2>
<ul id=\"doctor\">
" ;;
	*) T="<h2>The doctor found</h2>
<ul id=\"doctor\">
" ;;
	esac
}

pt_finding() {
	T="<li>${pv_text}</li>
"
}

pt_doc_end() {
	case $PG_LANG in
	de) T="</ul>
<p class=\"note\">conf.d/DOCTOR.txt enthält den ganzen Bericht (auf Englisch).</p>
" ;;
	*) T="</ul>
<p class=\"note\">conf.d/DOCTOR.txt has the whole report.</p>
" ;;
	esac
}

pt_bench() {
	case $PG_LANG in
	de) T="<h2>Durchsatztests</h2>
" ;;
	*) T="<h2>Throughput tests</h2>
" ;;
	esac
}

pt_chart() {
	case $PG_LANG in
	de) T="<p><img class=\"chart\" id=\"chart\" alt=\"Der letzte Vergleich: ${pv_name}\" src='data:image/svg+xml,${pv_svghtml}'></p>
" ;;
	*) T="<p><img class=\"chart\" id=\"chart\" alt=\"The last comparison: ${pv_name}\" src='data:image/svg+xml,${pv_svghtml}'></p>
" ;;
	esac
}

pt_csvs() {
	T="<ul id=\"csv\">
"
}

pt_csv() {
	T="<li><a href=\".bench/${pv_name}\">${pv_name}</a></li>
"
}

pt_bench_end() {
	T="</ul>
"
}

pt_foot() {
	case $PG_LANG in
	de) T="<p class=\"foot\">Geschrieben von userscript, sobald sich etwas ändert, das diese Seite zeigt. Dasselbe als Text: die .status-Datei neben jeder deiner Dateien, und DOCTOR.txt.</p>
</body>
</html>
" ;;
	*) T="<p class=\"foot\">Written by userscript whenever what it shows changes. The same, as text: the .status file next to each of your files, and DOCTOR.txt.</p>
</body>
</html>
" ;;
	esac
}
