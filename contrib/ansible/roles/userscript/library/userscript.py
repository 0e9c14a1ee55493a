#!/usr/bin/python
# The documentation of the role's action (action_plugins/userscript.py,
# which does the work on the controller). This module never runs on a NAS.
from __future__ import annotations

DOCUMENTATION = r'''
module: userscript
short_description: install userscript, write conf.d, apply it and report the statuses
description:
  - Runs on the controller and sends the NAS only POSIX sh commands and
    files, so the NAS needs no Python (BusyBox ash is enough).
  - The role userscript calls it; its README describes each step.
options:
  step:
    description: What to do.
    type: str
    required: true
    choices: [probe, install, confd, report, bench, init]
  app:
    description: The app dir on the NAS (holds init, conf.d and state).
    type: path
    required: true
  shell:
    description: The shell that runs init and the sh engine on the NAS.
    type: str
    default: /bin/sh
  env:
    description: More environment for every command on the NAS.
    type: dict
    default: {}
  package:
    description: (install) The package on the controller.
    type: str
  dist:
    description: (install) A folder on the controller holding userscript-VERSION-TARGET.tgz.
    type: str
  arch:
    description: (install) The package's target (armv4, armv5, armv7, amd64); empty is from uname -m.
    type: str
  files:
    description: (confd) The conf.d files, each with name and one of src, template, content.
    type: list
    elements: dict
  absent:
    description: (confd) conf.d files to delete.
    type: list
    elements: str
  settings:
    description: (confd) The whole userscript.toml.
    type: str
  apply:
    description: (report) Apply conf.d before reading the statuses.
    type: bool
    default: true
  fail_words:
    description: (report) The status words that fail the host.
    type: list
    elements: str
  bench_args:
    description: (bench) Arguments of bench run.
    type: list
    elements: str
  dest:
    description: (bench) A folder on the controller for the results (DEST/HOST/NAME.csv).
    type: str
  compare:
    description: (bench) A results file in conf.d/.bench to compare the new one with.
    type: str
  verb:
    description: (init) start, restart or stop.
    type: str
author: userscript maintainers
'''

EXAMPLES = r'''
- name: Apply conf.d and report every status
  userscript:
    step: report
    app: /mnt/ide1/public/applications/userscript
'''

RETURN = r'''
status:
  description: (report) userscript status --json (Go engine), or the status files' words.
  type: dict
  returned: step report
generations:
  description: (report) meta.json of each generation this run made.
  type: list
  returned: step report
'''

from ansible.module_utils.basic import AnsibleModule


ARGUMENT_SPEC = dict(
    step=dict(type='str', required=True, choices=['probe', 'install', 'confd', 'report', 'bench', 'init']),
    app=dict(type='path', required=True),
    shell=dict(type='str', default='/bin/sh'),
    env=dict(type='dict', default={}),
    package=dict(type='str'),
    dist=dict(type='str'),
    arch=dict(type='str'),
    files=dict(type='list', elements='dict'),
    absent=dict(type='list', elements='str'),
    settings=dict(type='str'),
    apply=dict(type='bool', default=True),
    fail_words=dict(type='list', elements='str'),
    bench_args=dict(type='list', elements='str'),
    dest=dict(type='str'),
    compare=dict(type='str'),
    verb=dict(type='str'),
)


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    module.fail_json(msg='userscript runs on the controller (action_plugins/userscript.py); is the role complete?')


if __name__ == '__main__':
    main()
