# The userscript role's one action: it runs on the controller and sends
# the NAS only POSIX sh commands (BusyBox ash is enough) and files, so no
# step needs Python on the NAS. `step` picks what it does:
#   probe    facts: userscript_engine (go, sh or none), userscript_version,
#            userscript_machine (uname -m), userscript_generation (newest)
#   install  unpack the package for this host, unless that version is
#            there; then probe again
#   confd    write conf.d files (and userscript.toml) that differ
#   report   apply now, then fail on the statuses in fail_words; changed
#            when a generation was made
#   bench    bench run on the NAS, fetch its CSV and JSON, bench compare
#   init     the package's init with a verb (start, restart, stop)
# The role's README describes the variables behind each argument.

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import shlex
import tarfile

from ansible.errors import AnsibleError
from ansible.module_utils.common.text.converters import to_text
from ansible.plugins.action import ActionBase

SAFE_NAME = re.compile(r'^[A-Za-z0-9_][A-Za-z0-9._-]*$')
# uname -m -> the package's target (docs: the README's install table).
ARCHES = {
    'armv4l': 'armv4', 'armv4tl': 'armv4',
    'armv5l': 'armv5', 'armv5tel': 'armv5', 'armv5tejl': 'armv5',
    'armv6l': 'armv7', 'armv7l': 'armv7',
    'x86_64': 'amd64', 'amd64': 'amd64',
}


class ActionModule(ActionBase):
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        self.vars = task_vars or {}
        a = self._task.args
        self.app = a.get('app') or ''
        if not self.app.startswith('/'):
            raise AnsibleError('userscript: app must be an absolute path (userscript_app), not %r' % self.app)
        self.shell = a.get('shell') or '/bin/sh'
        self.env = a.get('env') or {}
        for k in self.env:
            if not re.match(r'^[A-Za-z_][A-Za-z0-9_]*$', k):
                raise AnsibleError('userscript: %r is no environment variable name (userscript_environment)' % k)
        step = a.get('step')
        steps = {'probe': self.probe, 'install': self.install, 'confd': self.confd,
                 'report': self.report, 'bench': self.bench, 'init': self.init}
        if step not in steps:
            raise AnsibleError('userscript: step must be one of %s, not %r' % (', '.join(steps), step))
        try:
            result.update(steps[step](a))
        finally:
            if self._connection._shell.tmpdir:
                self._remove_tmp_path(self._connection._shell.tmpdir)
        return result

    # ---- running sh on the NAS -------------------------------------------

    def sh(self, script, check=True):
        """Runs script under the NAS's /bin/sh in the app dir's
        environment; returns rc, stdout, stderr."""
        pre = ''.join('%s=%s; export %s; ' % (k, shlex.quote(str(v)), k) for k, v in self.env.items())
        pre += 'APP=%s; SH=%s; ' % (shlex.quote(self.app), shlex.quote(self.shell))
        res = self._low_level_execute_command(pre + script, sudoable=True)
        if check and res['rc'] != 0:
            raise AnsibleError('userscript: on the NAS, %s: exit %d: %s' % (
                script.split(';')[0][:80], res['rc'], (res.get('stderr') or res.get('stdout') or '').strip()))
        return res['rc'], res.get('stdout', ''), res.get('stderr', '')

    def tmp(self):
        if not self._connection._shell.tmpdir:
            self._make_tmp_path()
        return self._connection._shell.tmpdir

    # GO is the Go engine's command (the copy init runs, else bin/userscript).
    GO = 'if [ -x "$APP/state/run/userscript" ]; then GO="$APP/state/run/userscript"; else GO="$APP/bin/userscript"; fi; '

    # ---- probe ---------------------------------------------------------------

    def probe(self, a):
        _, out, _ = self.sh(
            'echo "machine $(uname -m)"; '
            '[ -f "$APP/lib/engine.sh" ] || { echo "engine none"; exit 0; }; '
            'read -r v <"$APP/lib/version" && echo "version $v"; '
            'if [ -f "$APP/bin/userscript" ] && "$SH" "$APP/lib/engine.sh" probe "$APP/bin/userscript"; '
            'then echo "engine go"; else echo "engine sh"; fi; '
            'ls "$APP/state/gen" 2>/dev/null | sed -n "s/^\\([0-9][0-9]*\\)$/gen \\1/p"')
        facts = {'userscript_engine': 'none', 'userscript_version': '', 'userscript_generation': 0}
        for line in out.splitlines():
            k, _, v = line.strip().partition(' ')
            if k == 'gen':
                facts['userscript_generation'] = max(facts['userscript_generation'], int(v))
            elif k in ('machine', 'version', 'engine'):
                facts['userscript_' + k] = v
        return {'changed': False, 'ansible_facts': facts}

    # ---- install -------------------------------------------------------------

    def package_path(self, a):
        pkg = a.get('package') or ''
        if pkg:
            return self._find_needle('files', pkg)
        target = a.get('arch') or ARCHES.get(self.vars.get('userscript_machine', ''), '')
        if not target:
            raise AnsibleError('userscript: no package for machine %r (uname -m): set userscript_arch '
                               '(armv4, armv5, armv7, amd64) or userscript_package; a Synology installs the .spk '
                               'with Package Center' % self.vars.get('userscript_machine'))
        d = a.get('dist') or ''
        names = sorted(n for n in os.listdir(d) if re.match(r'^userscript-.*-%s\.tgz$' % re.escape(target), n)) if os.path.isdir(d) else []
        if len(names) != 1:
            raise AnsibleError('userscript: want one userscript-VERSION-%s.tgz in %s (userscript_dist), found %s' % (target, d, names or 'none'))
        return os.path.join(d, names[0])

    def install(self, a):
        if posixpath.basename(self.app.rstrip('/')) != 'userscript':
            raise AnsibleError('userscript: the package unpacks into a folder named userscript; userscript_app %s is not one' % self.app)
        pkg = self.package_path(a)
        with tarfile.open(pkg) as t:
            want = to_text(t.extractfile('userscript/lib/version').read()).strip()
        have = self.vars.get('userscript_version', '')
        res = {'package': os.path.basename(pkg), 'version': want}
        if have == want:
            return dict(res, changed=False, msg='userscript %s is installed' % want)
        msg = 'userscript %s installed' % want if not have else 'userscript %s upgraded to %s (conf.d, userscript.toml and state/ kept)' % (have, want)
        if self._task.check_mode:
            return dict(res, changed=True, msg='would be: ' + msg)
        remote = posixpath.join(self.tmp(), 'package.tgz')
        self._transfer_file(pkg, remote)
        self.sh('mkdir -p "${APP%%/*}" && cd "${APP%%/*}" && gunzip -c %s | tar -xf - && [ -f "$APP/init" ]' % shlex.quote(remote))
        # The engine may have changed (a first install): probe again.
        return dict(self.probe(a), **dict(res, changed=True, msg=msg))

    # ---- confd ---------------------------------------------------------------

    def wanted(self, a):
        """The conf.d files this host should have: name -> text."""
        files = {}
        for f in a.get('files') or []:
            name = f.get('name') or posixpath.basename(f.get('src') or re.sub(r'\.j2$', '', f.get('template') or ''))
            if not SAFE_NAME.match(name) or name.endswith('.status'):
                raise AnsibleError('userscript: %r is no name for conf.d (letters, digits and . _ - only; not a .status)' % name)
            if 'content' in f:
                text = f['content']
            elif f.get('template'):
                text = self.render(self._find_needle('templates', f['template']))
            elif f.get('src'):
                with open(self._find_needle('files', f['src']), 'rb') as h:
                    text = to_text(h.read())
            else:
                raise AnsibleError('userscript: conf.d file %s needs src, template or content' % name)
            files[name] = text
        return files

    def render(self, path):
        with open(path, 'rb') as h:
            data = to_text(h.read())
        templar = self._templar.copy_with_new_env(searchpath=[os.path.dirname(path)], available_variables=self.vars)
        return templar.do_template(data, preserve_trailing_newlines=True, escape_backslashes=False)

    def confd(self, a):
        want = {'conf.d/' + n: t for n, t in self.wanted(a).items()}
        if a.get('settings') is not None:
            want['userscript.toml'] = a['settings']
        absent = ['conf.d/' + n for n in a.get('absent') or []]
        for n in absent:
            if not SAFE_NAME.match(n[7:]):
                raise AnsibleError('userscript: %r is no name for conf.d' % n)
        names = sorted(set(want) | set(absent))
        have = self.hashes(names)
        changed = [n for n in sorted(want) if have.get(n) != hashlib.md5(want[n].encode()).hexdigest()]
        removed = [n for n in absent if n in have]
        res = {'changed': bool(changed or removed), 'files': changed, 'removed': removed,
               'settings_changed': 'userscript.toml' in changed}
        if self._task.diff and res['changed']:
            res['diff'] = [self.file_diff(n, n in have, want.get(n)) for n in changed + removed]
            if self.vars.get('userscript_engine') == 'go':
                res['diff'].append({'prepared': self.staged_diff(want, changed, removed)})
        if self._task.check_mode or not res['changed']:
            return res
        tmp = self.tmp()
        cmds = []
        for i, n in enumerate(changed):
            remote = posixpath.join(tmp, 'f%d' % i)
            self._transfer_data(remote, want[n])
            aside = posixpath.join(posixpath.dirname(n), '.%s.ansible.tmp' % posixpath.basename(n))
            cmds.append('cp %s "$APP/%s" && mv -f "$APP/%s" "$APP/%s"' % (shlex.quote(remote), aside, aside, n))
        cmds += ['rm -f "$APP/%s"' % n for n in removed]
        self.sh('mkdir -p "$APP/conf.d" && ' + ' && '.join(cmds))
        return res

    def hashes(self, names):
        """md5 of each of names (relative to the app dir) that is a file."""
        if not names:
            return {}
        _, out, _ = self.sh('cd "$APP" 2>/dev/null || exit 0; for f in %s; do [ -f "$f" ] && ! [ -L "$f" ] && md5sum "$f"; done; exit 0'
                            % ' '.join(shlex.quote(n) for n in names))
        got = {}
        for line in out.splitlines():
            h, _, n = line.partition('  ')
            got[n.strip()] = h.strip()
        return got

    def cat(self, rel):
        _, out, _ = self.sh('cat "$APP/%s"' % rel, check=False)
        return out

    def file_diff(self, n, existed, text):
        return {'before_header': n, 'after_header': n,
                'before': self.cat(n) if existed else '', 'after': text or ''}

    def staged_diff(self, want, changed, removed):
        """`userscript diff` as it will be once the new conf.d files are
        there: run on a copy of conf.d, userscript.toml and the state the
        plan reads, never on the app dir itself."""
        tmp = self.tmp()
        stage = posixpath.join(tmp, 'app')
        q = shlex.quote(stage)
        self.sh('mkdir -p %s/conf.d %s/state && for f in "$APP"/conf.d/* "$APP"/conf.d/.[!.]*; do '
                '[ -f "$f" ] && ! [ -L "$f" ] && cp "$f" %s/conf.d/; done; '
                '[ -f "$APP/userscript.toml" ] && cp "$APP/userscript.toml" %s/; '
                'for d in base written held; do [ -d "$APP/state/$d" ] && cp -R "$APP/state/$d" %s/state/; done; exit 0'
                % (q, q, q, q, q))
        for i, n in enumerate(changed):
            self._transfer_data(posixpath.join(stage, n), want[n])
        rm = ''.join('rm -f %s/%s; ' % (q, n) for n in removed)
        _, out, err = self.sh(rm + self.GO + '"$GO" --app %s diff' % q, check=False)
        return 'userscript diff (%s):\n%s%s' % (self._task.check_mode and 'would be' or 'to be applied', out, err)

    # ---- report --------------------------------------------------------------

    def report(self, a):
        since = int(self.vars.get('userscript_generation') or 0)
        engine = self.vars.get('userscript_engine', 'none')
        fail_words = a.get('fail_words') or ['REFUSED', 'REJECTED', 'FAILED']
        res = {'changed': False, 'engine': engine}
        if engine == 'none':
            if self._task.check_mode:
                return dict(res, msg='userscript is not installed yet (check mode)')
            raise AnsibleError('userscript: no userscript in %s' % self.app)
        if not self._task.check_mode and a.get('apply', True):
            cmd = self.GO + '"$GO" apply' if engine == 'go' else '"$SH" "$APP/lib/engine.sh" apply'
            res['apply_rc'], out, err = self.sh(cmd + ' 2>&1', check=False)
            res['apply_output'] = out.splitlines()
        if engine == 'go':
            _, out, err = self.sh(self.GO + '"$GO" status --json')
            doc = json.loads(out)
            if doc.get('version') != 1:
                raise AnsibleError('userscript: status --json version %r, this role reads version 1' % doc.get('version'))
            res['status'] = doc
            targets = [(t.get('sources') and t['name'], t.get('status', ''), t.get('reason', ''), t.get('line', ''))
                       for t in doc['targets']]
            stopped = doc.get('stopped', '')
        else:
            targets, stopped = self.status_files()
            res['status'] = {'targets': [{'name': n, 'status': w, 'reason': r, 'line': ln} for n, w, r, ln in targets]}
        gens = self.generations(since)
        res['generations'] = gens
        res['changed'] = any(g.get('result') == 'ok' for g in gens)
        if self._task.diff and gens:
            res['diff'] = [d for g in gens for d in self.gen_diff(g)]
        bad = ['conf.d/%s: %s: %s%s' % (n, w, r, ln and ' (%s)' % ln or '') for n, w, r, ln in targets if n and w in fail_words]
        words = ['%s %s' % (n, w) for n, w, _, _ in targets if n and w]
        if stopped:
            res['warnings'] = ['nothing is applied: ' + stopped]
        if bad:
            return dict(res, failed=True, msg='; '.join(bad))
        res['msg'] = ', '.join(words) or 'no sources in conf.d'
        return res

    def status_files(self):
        """(name, word, reason, line) of every conf.d/NAME.status, and
        what stops applying (DISABLE, SAFE-MODE) or ''."""
        _, out, _ = self.sh('cd "$APP/conf.d" || exit 1; for f in *.status; do [ -f "$f" ] && { echo "@@@ $f"; cat "$f"; echo; }; done; '
                            'for f in DISABLE DISABLE.txt SAFE-MODE; do [ -e "$f" ] && echo "@@! $f"; done; exit 0')
        targets, cur, stopped = [], None, ''
        for line in out.splitlines():
            line = line.rstrip('\r')
            if line.startswith('@@@ '):
                cur = [line[4:-len('.status')], '', '', '']
                targets.append(cur)
            elif line.startswith('@@! '):
                stopped = 'conf.d/%s exists' % line[4:]
            elif cur is not None:
                k, _, v = line.partition(': ')
                i = {'status': 1, 'reason': 2, 'line': 3}.get(k)
                if i and not cur[i]:
                    cur[i] = v
        return [tuple(t) for t in targets], stopped

    def generations(self, since):
        """meta.json of every generation newer than since."""
        _, out, _ = self.sh('cd "$APP/state/gen" 2>/dev/null || exit 0; for g in *; do case $g in *[!0-9]*) continue ;; esac; '
                            '[ -f "$g/meta.json" ] && { echo "@@@ $g"; cat "$g/meta.json"; echo; }; done; exit 0')
        gens = []
        for chunk in out.split('@@@ ')[1:]:
            num, _, body = chunk.partition('\n')
            if int(num) <= since:
                continue
            try:
                meta = json.loads(body)
            except ValueError:
                meta = {}
            meta['dir'] = num
            gens.append(meta)
        return gens

    def gen_diff(self, g):
        """What generation g changed, each target from before to after."""
        out = []
        for name in g.get('changed') or []:
            if not SAFE_NAME.match(name):
                continue
            base = 'state/gen/%s/' % g['dir']
            out.append({'before_header': 'live %s (before generation %s)' % (name, g['dir']),
                        'after_header': 'target %s (generation %s)' % (name, g['dir']),
                        'before': self.cat(base + 'prev/' + name), 'after': self.cat(base + 'files/' + name)})
        return out

    # ---- bench ---------------------------------------------------------------

    def bench(self, a):
        engine = self.vars.get('userscript_engine', 'none')
        args = ' '.join(shlex.quote(str(x)) for x in a.get('bench_args') or [])
        res = {'changed': True}
        if self._task.check_mode:
            return dict(res, msg='would run bench run %s' % args)
        run = self.GO + '"$GO" bench run ' if engine == 'go' else '"$SH" "$APP/lib/bench.sh" run '
        rc, out, err = self.sh(run + args + ' 2>&1', check=False)
        res['bench_output'] = out.splitlines()
        if rc != 0:
            return dict(res, failed=True, msg='bench run: exit %d' % rc)
        _, names, _ = self.sh('cd "$APP/conf.d/.bench" && ls')
        csvs = sorted(n for n in names.split() if n.endswith('.csv') and SAFE_NAME.match(n))
        if not csvs:
            return dict(res, failed=True, msg='bench run wrote no CSV into conf.d/.bench')
        new = csvs[-1]
        res['csv'] = new
        dest = a.get('dest')
        if dest:
            host = self.vars.get('inventory_hostname', 'nas')
            os.makedirs(os.path.join(dest, host), exist_ok=True)
            for n in [new] + [n for n in names.split() if n == new[:-4] + '.json']:
                with open(os.path.join(dest, host, n), 'w') as h:
                    h.write(self.cat('conf.d/.bench/' + n))
            res['fetched'] = os.path.join(dest, host, new)
        before = a.get('compare')
        if before and engine == 'go':
            _, out, err = self.sh('cd "$APP/conf.d/.bench" && ' + self.GO + '"$GO" bench compare %s %s 2>&1'
                                  % (shlex.quote(before), shlex.quote(new)), check=False)
            res['compare'] = out.splitlines()
        elif before:
            res['compare'] = ['bench compare needs the Go program: run it on your PC with the fetched CSVs']
        return res

    # ---- init ----------------------------------------------------------------

    def init(self, a):
        verb = a.get('verb')
        if verb not in ('start', 'restart', 'stop'):
            raise AnsibleError('userscript: init verb must be start, restart or stop, not %r' % verb)
        if self._task.check_mode:
            return {'changed': True, 'msg': 'would run init ' + verb}
        _, out, _ = self.sh('"$SH" "$APP/init" %s 2>&1 </dev/null' % verb)
        return {'changed': True, 'msg': 'init ' + verb, 'init_output': out.splitlines()}
