#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""The gunicorn services of the stack (Keystone, Glance) log each
request's duration and worker in their access log, after gunicorn's
default fields: a request that held a sync worker for long shows in the
kept logs of a failed run.
"""

import os
import re
import sys
import urllib.request

import pytest

from nova_mini_deploy import glance
from nova_mini_deploy import keystone
from nova_mini_deploy import service
from nova_mini_deploy import util

APP = '''def application(environ, start_response):
    start_response('200 OK', [('Content-Type', 'text/plain')])
    return [b'probe']
'''


class _Probe(service.GunicornService):
    name = 'probe'
    title = 'Probe'
    wsgi_app = 'probe_app:application'

    def answers(self):
        try:
            with urllib.request.urlopen(self.url + '/ready', timeout=5):
                return True
        except OSError:
            return False

    def _env(self):
        return dict(os.environ)


def _logformat(argv):
    assert argv.count('--access-logformat') == 1, argv
    return argv[argv.index('--access-logformat') + 1]


@pytest.mark.parametrize('cls', [glance.Glance, keystone.Keystone])
def test_command_logs_duration_after_default_fields(cls, tmp_path):
    gunicorn_config = pytest.importorskip('gunicorn.config')
    args = (str(tmp_path), 9) if cls is glance.Glance else (
        str(tmp_path), 9, 'secret')
    fmt = _logformat(cls(*args, venv=str(tmp_path / 'venv')).command())
    # gunicorn's own default, kept whole, then the worker and duration.
    assert fmt.startswith(gunicorn_config.AccessLogFormat.default + ' ')
    assert '%(L)s' in fmt and '%(p)s' in fmt


def test_access_log_line_has_duration(tmp_path):
    """A real gunicorn (the test venv's) takes the format and writes it."""
    if not os.path.exists(os.path.join(sys.prefix, 'bin', 'gunicorn')):
        pytest.skip('no gunicorn in %s' % sys.prefix)
    (tmp_path / 'probe_app.py').write_text(APP)
    probe = _Probe(str(tmp_path), util.free_port(), sys.prefix, workers=1)
    probe.start(timeout=60)
    try:
        with urllib.request.urlopen(probe.url + '/probe', timeout=30) as r:
            assert r.read() == b'probe'
    finally:
        probe.stop()
    with open(probe.log_path) as f:
        lines = [line for line in f if '"GET /probe HTTP/1.1"' in line]
    assert len(lines) == 1, lines
    assert re.search(r'" 200 5 "-" "Python-urllib/[\d.]+" '
                     r'pid=<\d+> \d+\.\d{6}s$', lines[0].rstrip()), lines
