package vm

import (
	"bufio"
	"context"
	"net"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A rebootBox is what rebootProof needs of a box.
type rebootBox struct {
	m                func() *Machine
	app              string
	reboot           func(context.Context) error
	smbConf, exports string      // live paths
	share            string      // a folder for the shares
	exportsWord      string      // the status an exports replacement gets
	ftpConf          string      // a proftpd.conf naming its server "tuned by userscript"
	bootRestarts     string      // the services a reboot restarts, each once (restarts)
	speed            func(i int) // after reboot i: print what its apply cost (or nil)
	uninstall        func(context.Context) (string, error)
}

func rebootProof(t *testing.T, ctx context.Context, b rebootBox) {
	app := b.app
	sysctl, tuning, want := kernelTuning(t, ctx, b.m(), "eth0")
	orig := map[string]string{}
	for p := range want {
		v, _, _ := b.m().Read(ctx, p)
		v = strings.TrimSpace(v)
		if i := strings.Index(v, "["); i >= 0 {
			v = v[i : strings.Index(v, "]")+1]
		}
		orig[p] = v
	}
	files := map[string]string{
		"smb.conf.merge": "[global]\nserver string = tuned by userscript\n\n[tuned]\npath = " + b.share + "\ncomment = added by a merge\nread only = yes\nguest ok = yes\n",
		"smb.conf.add":   "\n[appended]\npath = " + b.share + "\ncomment = added by an add\nguest ok = yes\n",
		"exports":        b.share + " 10.0.2.0/24(ro,no_subtree_check)\n",
		"sysctl.conf":    sysctl,
		"tuning.conf":    tuning,
		"proftpd.conf":   b.ftpConf,
	}
	edit := map[string]string{}
	for name, body := range files {
		edit[app+"/conf.d/"+name] = body
	}
	if err := b.m().SaveAll(ctx, edit); err != nil {
		t.Fatal(err)
	}
	check := func(when string) string {
		t.Helper()
		waitStatus(t, ctx, b.m(), app, "smb.conf", "OK")
		waitStatus(t, ctx, b.m(), app, "exports", b.exportsWord)
		waitStatus(t, ctx, b.m(), app, "sysctl", "OK")
		waitStatus(t, ctx, b.m(), app, "tuning", "OK")
		waitStatus(t, ctx, b.m(), app, "proftpd.conf", "OK")
		settled(t, ctx, b.m(), app, map[string][]string{
			b.smbConf: {"tuned by userscript", "[appended]"},
			b.exports: {"10.0.2.0/24"},
		})
		if bad := kernelValues(ctx, b.m(), want); len(bad) > 0 {
			t.Errorf("%s: kernel values: %v", when, bad)
		}
		l := smbclient(t, b.m(), app)
		for _, s := range []string{"tuned", "appended"} {
			if !strings.Contains(l, s) {
				t.Errorf("%s: smbclient -L does not show %q:\n%s", when, s, l)
			}
		}
		smbls(t, b.m(), app, "tuned")
		if banner := ftpBanner(t, b.m()); !strings.Contains(banner, "(tuned by userscript)") {
			t.Errorf("%s: the FTP server's greeting does not name the ServerName of conf.d/proftpd.conf: %q", when, banner)
		}
		live, _, _ := b.m().Read(ctx, b.exports)
		if !strings.Contains(live, "10.0.2.0/24") {
			t.Errorf("%s: exports: %q", when, live)
		}
		nfsls(t, ctx, b.m(), b.share)
		gens, err := b.m().Run(ctx, "ls "+app+"/state/gen")
		if err != nil {
			t.Fatal(err)
		}
		return gens
	}
	gens := check("after the edit")
	for i := 1; i <= 2; i++ {
		lines, err := b.m().Run(ctx, "wc -l <"+app+"/state/log")
		if err != nil {
			t.Fatal(err)
		}
		if err := b.reboot(ctx); err != nil {
			t.Fatal(err)
		}
		if b.speed != nil {
			b.speed(i)
		}
		when := "after reboot " + strconv.Itoa(i)
		if g := check(when); g != gens {
			t.Errorf("%s: the history changed: %q, was %q", when, g, gens)
		}
		n, _ := strconv.Atoi(strings.TrimSpace(lines))
		if got := restarts(t, ctx, b.m(), app, n); got != b.bootRestarts {
			t.Errorf("%s: the boot restarted %q, want %q", when, got, b.bootRestarts)
		}
	}
	// A config testparm accepts but smbd cannot serve with.
	before, _, _ := b.m().Read(ctx, b.smbConf)
	bad := files["smb.conf.merge"] + "\n[global]\ninterfaces = 10.9.9.9/24\nbind interfaces only = yes\n"
	if err := b.m().Save(ctx, app+"/conf.d/smb.conf.merge", bad); err != nil {
		t.Fatal(err)
	}
	st := waitStatus(t, ctx, b.m(), app, "smb.conf", "REJECTED")
	t.Logf("smb.conf.status:\n%s", st)
	if after, _, _ := b.m().Read(ctx, b.smbConf); after != before {
		t.Errorf("the rejected smb.conf was not rolled back:\n%s", after)
	}
	smbls(t, b.m(), app, "tuned")
	// uninstall puts the kernel's values back.
	if out, err := b.uninstall(ctx); err != nil {
		t.Fatalf("uninstall: %v: %s", err, out)
	}
	if bad := kernelValues(ctx, b.m(), orig); len(bad) > 0 {
		t.Errorf("after uninstall: %v", bad)
	}
}

// settled waits until each live file holds its markers and no engine
// holds state/lock.d: every file of the edit is applied and its services
// proven. A status can say OK from an apply that saw only part of an
// edit while a later one still restarts smbd (smbclient then met a reset
// connection through the forward).
func settled(t *testing.T, ctx context.Context, m *Machine, app string, live map[string][]string) {
	t.Helper()
	end := time.Now().Add(4 * time.Minute)
	for {
		missing := ""
		for p, marks := range live {
			body, _, _ := m.Read(ctx, p)
			for _, s := range marks {
				if !strings.Contains(body, s) {
					missing = p + " lacks " + strconv.Quote(s)
				}
			}
		}
		if missing == "" {
			if _, rc, err := m.Exec(ctx, "test -d "+quote(app+"/state/lock.d")); err == nil && rc != 0 {
				return
			}
			missing = "an engine holds state/lock.d"
		}
		if time.Now().After(end) {
			t.Fatalf("not settled: %s%s", missing, logTail(ctx, m, app))
		}
		time.Sleep(time.Second)
	}
}

// logTail is the end of the engine's log, for a failure's message.
func logTail(ctx context.Context, m *Machine, app string) string {
	out, _, _ := m.Exec(ctx, "tail -n 40 "+quote(app+"/state/log"))
	return "\nstate/log ends:\n" + out
}

// smbls connects to a share through the forward and lists it.
func smbls(t *testing.T, m *Machine, app, share string) {
	t.Helper()
	out, err := exec.Command("smbclient", "-N", "//127.0.0.1/"+share, "-p", strconv.Itoa(m.Port(445)), "-m", "SMB3", "-c", "ls").CombinedOutput()
	if err != nil {
		t.Errorf("smbclient //127.0.0.1/%s -c ls: %v: %s%s", share, err, out, logTail(context.Background(), m, app))
	}
}

// restarts lists the services restarted since line after of state/log,
// sorted, one word for each restart.
func restarts(t *testing.T, ctx context.Context, m *Machine, app string, after int) string {
	t.Helper()
	out, err := m.Run(ctx, "tail -n +"+strconv.Itoa(after+1)+" "+app+"/state/log")
	if err != nil {
		t.Fatal(err)
	}
	var svcs []string
	for _, l := range strings.Split(out, "\n") {
		if _, rest, ok := strings.Cut(l, " exec service="); ok {
			svc, _, _ := strings.Cut(rest, " ")
			svcs = append(svcs, svc)
		}
	}
	sort.Strings(svcs)
	return strings.Join(svcs, " ")
}

// ftpBanner is the greeting of the box's FTP server, read through the
// forward of port 21 (ProFTPD's names its ServerName in parentheses).
func ftpBanner(t *testing.T, m *Machine) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(m.Port(21)), 30*time.Second)
	if err != nil {
		t.Errorf("FTP: %v", err)
		return ""
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Errorf("FTP: no greeting: %v", err)
	}
	return line
}

// nfsls mounts the box's export with the guest kernel's NFS client
// (NFSv3 over TCP to its own address, through rpcbind and mountd) and
// lists it.
func nfsls(t *testing.T, ctx context.Context, m *Machine, share string) {
	t.Helper()
	out, err := m.Run(ctx, "mkdir -p /run/nfs && mount -t nfs -o vers=3,proto=tcp,nolock 10.0.2.15:"+share+" /run/nfs && ls -a /run/nfs; rc=$?; umount /run/nfs; exit $rc")
	if err != nil {
		t.Errorf("NFS client: %v: %s", err, out)
	}
}

// waitStatus waits until conf.d/NAME.status says word.
func waitStatus(t *testing.T, ctx context.Context, m *Machine, app, name, word string) string {
	t.Helper()
	end := time.Now().Add(4 * time.Minute)
	for {
		st, _, err := m.Read(ctx, app+"/conf.d/"+name+".status")
		if err != nil {
			t.Fatal(err)
		}
		if Status(st) == word {
			return st
		}
		if time.Now().After(end) {
			t.Fatalf("%s.status never said %s: %s", name, word, st)
		}
		time.Sleep(time.Second)
	}
}

// kernelTuning is a sysctl.conf and a tuning.conf for the guest's NIC
// and first disk, with values the guest's kernel does not have by
// default; read back from the kernel by kernelValues.
func kernelTuning(t *testing.T, ctx context.Context, m *Machine, nic string) (sysctl, tuning string, want map[string]string) {
	sched, err := m.Run(ctx, "cat /sys/block/vda/queue/scheduler")
	if err != nil {
		t.Fatal(err)
	}
	pick := ""
	for _, s := range strings.Fields(sched) {
		if !strings.HasPrefix(s, "[") {
			pick = s
		}
	}
	want = map[string]string{
		"/proc/sys/net/core/rmem_max":             "4194304",
		"/proc/sys/net/ipv4/tcp_rmem":             "8192\t873800\t4194304",
		"/sys/class/net/" + nic + "/tx_queue_len": "2000",
		"/sys/block/vda/queue/read_ahead_kb":      "1024",
		"/sys/block/vda/queue/scheduler":          "[" + pick + "]",
	}
	sysctl = "net.core.rmem_max = 4194304\nnet.ipv4.tcp_rmem = 8192 873800 4194304\n"
	tuning = "txqueuelen " + nic + " = 2000\nsysfs block/vda/queue/read_ahead_kb = 1024\nsysfs block/vda/queue/scheduler = " + pick + "\n"
	return sysctl, tuning, want
}

// kernelValues reads each kernel file of want and says which differ.
func kernelValues(ctx context.Context, m *Machine, want map[string]string) []string {
	var bad []string
	for p, w := range want {
		got, _, _ := m.Read(ctx, p)
		got = strings.TrimSpace(got)
		if strings.HasPrefix(w, "[") {
			if !strings.Contains(got, w) {
				bad = append(bad, p+": "+got+", want "+w)
			}
		} else if got != w {
			bad = append(bad, p+": "+got+", want "+w)
		}
	}
	return bad
}

// smbclient lists the box's shares through the forward of port 445;
// a failure's message ends with the log of the engine in app.
func smbclient(t *testing.T, m *Machine, app string) string {
	out, err := exec.Command("smbclient", "-N", "-L", "127.0.0.1", "-p", strconv.Itoa(m.Port(445)), "-m", "SMB3").CombinedOutput()
	if err != nil {
		t.Fatalf("smbclient -L: %v: %s%s", err, out, logTail(context.Background(), m, app))
	}
	return string(out)
}

// mark is a moment in the guest: its uptime and the count of processes
// its kernel has started (the processes line of /proc/stat).
type mark struct {
	ms    float64
	procs int
}

func parseMark(t *testing.T, text string) mark {
	var m mark
	lines := strings.Split(text, "\n")
	if f := strings.Fields(lines[0]); len(f) > 0 {
		s, _ := strconv.ParseFloat(f[0], 64)
		m.ms = s * 1000
	}
	for _, l := range lines {
		if n, ok := strings.CutPrefix(l, "processes "); ok {
			m.procs, _ = strconv.Atoi(n)
		}
	}
	if m.ms == 0 || m.procs == 0 {
		t.Fatalf("not a mark: %q", text)
	}
	return m
}
