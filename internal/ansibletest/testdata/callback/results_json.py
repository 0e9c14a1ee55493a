# A stdout callback for the tests: every task result and the recap as
# one JSON document (Debian's ansible-core has no json callback; it is
# in the ansible.posix collection).
from __future__ import annotations

import json
import time

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = '''
name: results_json
type: stdout
short_description: every task result and the recap as one JSON document
description: For userscript's tests.
'''


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'stdout'
    CALLBACK_NAME = 'results_json'

    def __init__(self):
        super().__init__()
        self.results = []
        self.started = time.monotonic()

    def add(self, result, **more):
        r = dict(result._result)
        r.update(more)
        r['seconds'] = round(time.monotonic() - self.started, 2)
        self.results.append({'task': result._task.name, 'host': result._host.get_name(), 'result': r})

    def v2_playbook_on_task_start(self, task, is_conditional):
        self.started = time.monotonic()

    def v2_playbook_on_handler_task_start(self, task):
        self.started = time.monotonic()

    def v2_runner_on_ok(self, result):
        self.add(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self.add(result, failed=True)

    def v2_runner_on_skipped(self, result):
        self.add(result, skipped=True)

    def v2_runner_on_unreachable(self, result):
        self.add(result, unreachable=True)

    def v2_playbook_on_stats(self, stats):
        summary = {h: stats.summarize(h) for h in sorted(stats.processed)}
        self._display.display(json.dumps({'results': self.results, 'stats': summary}, default=str, indent=1))
