package statuspage

// The page's fixed text, one set a language. A template holds {{name}}
// where a value goes; every value is HTML-escaped before it is put in
// (except those named *html, which are templates already filled). The
// sh engine gets the same templates (pagetext.sh, see Shell).

// Langs are the languages of the page, the first the default.
var Langs = []string{"en", "de"}

// names of the templates, in the order pagetext.sh defines them.
var names = []string{
	"head", "ban_ok", "ban_empty", "ban_need", "ban_off", "ban_safe", "ban_full",
	"files", "row", "reason", "line", "todo", "since", "held", "nofiles", "files_end",
	"hist", "hrow", "hnote", "hrej", "nohist", "hist_end",
	"doc", "finding", "doc_end",
	"bench", "chart", "csvs", "csv", "bench_end", "foot",
}

const style = `<style>
body{font-family:"Segoe UI",Helvetica,Arial,sans-serif;color:#1a1a1a;background:#fff;margin:0 auto;max-width:62em;padding:0 1em 2em;line-height:1.4}
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
</style>`

// en is the English text.
var en = map[string]string{
	"head": `<!DOCTYPE html>
<html lang="{{lang}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>userscript: status</title>
` + style + `
</head>
<body>
<h1>userscript on this NAS</h1>
`,
	"ban_ok":    `<p class="banner b-ok" id="banner">All fine: every file of yours in conf.d is live.</p>` + "\n",
	"ban_empty": `<p class="banner b-empty" id="banner">All fine: nothing to apply yet. Copy a file into conf.d to keep it (see conf.d/README.txt).</p>` + "\n",
	"ban_need":  `<p class="banner b-need" id="banner">Something needs you ({{n}}): see below.</p>` + "\n",
	"ban_off":   `<p class="banner b-off" id="banner">userscript is off: conf.d/{{name}} exists, so nothing is applied. Delete it to switch userscript on again.</p>` + "\n",
	"ban_safe":  `<p class="banner b-safe" id="banner">Safe mode: userscript applies nothing. {{why}} Delete conf.d/{{name}} to go on.</p>` + "\n",
	"ban_full":  `<p class="banner b-full" id="banner">The data disk is full: nothing new is applied until there is room.</p>` + "\n",
	"files": `<h2>Your files</h2>
<table id="files">
<tr><th>Status</th><th>File</th><th>What happened, and what to do</th><th>Live generation</th></tr>
`,
	"row":       `<tr class="{{class}}"><td class="word">{{word}}{{heldhtml}}</td><td class="file">{{file}}</td><td class="what">{{whathtml}}</td><td class="gen">{{gen}}</td></tr>` + "\n",
	"reason":    `<p class="reason">{{reason}}</p>`,
	"line":      `<p class="line">Your line: <code>{{line}}</code></p>`,
	"todo":      `<p class="todo"><strong>What to do:</strong> {{todo}}</p>`,
	"since":     `<p class="since">since {{time}}</p>`,
	"held":      `<br><span class="tag">held until you edit it</span>`,
	"nofiles":   `<p id="files">No file of yours in conf.d has a status yet.</p>` + "\n",
	"files_end": "</table>\n",
	"hist": `<h2>History, newest first</h2>
<table id="history">
<tr><th>Generation</th><th>Time</th><th>Kind</th><th>Result</th><th>Changed</th><th>Restarted</th></tr>
`,
	"hrow":     `<tr class="r-{{result}}"><td>{{id}}</td><td>{{time}}</td><td>{{kind}}</td><td class="result">{{result}}{{rejhtml}}{{notehtml}}</td><td>{{changed}}</td><td>{{restarted}}</td></tr>` + "\n",
	"hnote":    `<br><span class="note">{{note}}</span>`,
	"hrej":     `<br>rejected: {{rejected}}`,
	"nohist":   `<h2>History</h2>` + "\n" + `<p id="history">No change recorded yet.</p>` + "\n",
	"hist_end": "</table>\n",
	"doc": `<h2>The doctor found</h2>
<ul id="doctor">
`,
	"finding":   `<li>{{text}}</li>` + "\n",
	"doc_end":   "</ul>\n<p class=\"note\">conf.d/DOCTOR.txt has the whole report.</p>\n",
	"bench":     `<h2>Throughput tests</h2>` + "\n",
	"chart":     `<p><img class="chart" id="chart" alt="The last comparison: {{name}}" src='data:image/svg+xml,{{svghtml}}'></p>` + "\n",
	"csvs":      `<ul id="csv">` + "\n",
	"csv":       `<li><a href=".bench/{{name}}">{{name}}</a></li>` + "\n",
	"bench_end": "</ul>\n",
	"foot": `<p class="foot">Written by userscript whenever what it shows changes. The same, as text: the .status file next to each of your files, and DOCTOR.txt.</p>
</body>
</html>
`,
}

// de is the German text.
var de = map[string]string{
	"head": `<!DOCTYPE html>
<html lang="{{lang}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>userscript: Status</title>
` + style + `
</head>
<body>
<h1>userscript auf diesem NAS</h1>
`,
	"ban_ok":    `<p class="banner b-ok" id="banner">Alles in Ordnung: jede deiner Dateien in conf.d ist aktiv.</p>` + "\n",
	"ban_empty": `<p class="banner b-empty" id="banner">Alles in Ordnung: noch nichts anzuwenden. Kopiere eine Datei nach conf.d, um sie zu behalten (siehe conf.d/README.txt).</p>` + "\n",
	"ban_need":  `<p class="banner b-need" id="banner">Etwas braucht dich ({{n}}): siehe unten.</p>` + "\n",
	"ban_off":   `<p class="banner b-off" id="banner">userscript ist aus: conf.d/{{name}} existiert, daher wird nichts angewendet. Lösche die Datei, um userscript wieder einzuschalten.</p>` + "\n",
	"ban_safe":  `<p class="banner b-safe" id="banner">Abgesicherter Modus: userscript wendet nichts an. {{why}} Lösche conf.d/{{name}}, um weiterzumachen.</p>` + "\n",
	"ban_full":  `<p class="banner b-full" id="banner">Die Datenplatte ist voll: nichts Neues wird angewendet, bis wieder Platz ist.</p>` + "\n",
	"files": `<h2>Deine Dateien</h2>
<table id="files">
<tr><th>Status</th><th>Datei</th><th>Was geschah, und was zu tun ist</th><th>Aktive Generation</th></tr>
`,
	"row":       en["row"],
	"reason":    en["reason"],
	"line":      `<p class="line">Deine Zeile: <code>{{line}}</code></p>`,
	"todo":      `<p class="todo"><strong>Was zu tun ist:</strong> {{todo}}</p>`,
	"since":     `<p class="since">seit {{time}}</p>`,
	"held":      `<br><span class="tag">zurückgehalten, bis du sie änderst</span>`,
	"nofiles":   `<p id="files">Noch keine deiner Dateien in conf.d hat einen Status.</p>` + "\n",
	"files_end": "</table>\n",
	"hist": `<h2>Verlauf, neueste zuerst</h2>
<table id="history">
<tr><th>Generation</th><th>Zeit</th><th>Art</th><th>Ergebnis</th><th>Geändert</th><th>Neu gestartet</th></tr>
`,
	"hrow":     en["hrow"],
	"hnote":    en["hnote"],
	"hrej":     `<br>abgelehnt: {{rejected}}`,
	"nohist":   `<h2>Verlauf</h2>` + "\n" + `<p id="history">Noch keine Änderung aufgezeichnet.</p>` + "\n",
	"hist_end": "</table>\n",
	"doc": `<h2>Der Doktor hat gefunden</h2>
<ul id="doctor">
`,
	"finding":   en["finding"],
	"doc_end":   "</ul>\n<p class=\"note\">conf.d/DOCTOR.txt enthält den ganzen Bericht (auf Englisch).</p>\n",
	"bench":     `<h2>Durchsatztests</h2>` + "\n",
	"chart":     `<p><img class="chart" id="chart" alt="Der letzte Vergleich: {{name}}" src='data:image/svg+xml,{{svghtml}}'></p>` + "\n",
	"csvs":      en["csvs"],
	"csv":       en["csv"],
	"bench_end": en["bench_end"],
	"foot": `<p class="foot">Geschrieben von userscript, sobald sich etwas ändert, das diese Seite zeigt. Dasselbe als Text: die .status-Datei neben jeder deiner Dateien, und DOCTOR.txt.</p>
</body>
</html>
`,
}

// text is the template name in lang (English for a language without one).
func text(lang, name string) string {
	if lang == "de" {
		return de[name]
	}
	return en[name]
}
