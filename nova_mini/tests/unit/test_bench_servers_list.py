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

"""tools/bench/servers_list.py reads wrk's output into figures and goals:
a run in which no request completed has no p50 (wrk prints 0), and
non-2xx answers (in process or under wrk) or socket errors miss a goal
(exit status 1) instead of going unnoticed or stopping the run without
its figures.
"""

import importlib.util
import os

import pytest

_TOOL = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'tools',
                     'bench', 'servers_list.py')
_URL = 'http://127.0.0.1:1/compute/v2.1/servers/detail'
_NON_2XX = 'Non-2xx or 3xx responses: 1'
_SOCKET = 'Socket errors: connect 0, read 0, write 0, timeout 4'


def _wrk(requests, rps, p50, extra=()):
    return ''.join(
        ['Running 10s test @ %s\n' % _URL,
         '  2 threads and 4 connections\n',
         '  Latency Distribution\n',
         '     50%%  %s\n' % p50,
         '     99%%  %s\n' % p50,
         '  %d requests in 10.08s, 1.40MB read\n' % requests]
        + ['  %s\n' % line for line in extra]
        + ['Requests/sec:     %s\n' % rps,
           'Transfer/sec:    142.46KB\n'])


@pytest.fixture(scope='module')
def tool():
    spec = importlib.util.spec_from_file_location('servers_list_bench',
                                                  _TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_figures(tool):
    assert tool.wrk_figures(_URL, _wrk(111, '11.01', '267.39ms')) == (
        11.01, 267.39, [])
    assert tool.wrk_figures(_URL, _wrk(5, '0.50', '2.10s')) == (
        0.5, 2100.0, [])


def test_no_request_completed_has_no_p50(tool):
    assert tool.wrk_figures(_URL, _wrk(0, '0.00', '0.00us')) == (
        0.0, None, [])


def test_failures_returned(tool):
    out = _wrk(111, '11.01', '267.39ms', [_NON_2XX, _SOCKET])
    assert tool.wrk_figures(_URL, out) == (11.01, 267.39,
                                           [_NON_2XX, _SOCKET])


def _result(backend, size, failures):
    scenario = {'rps': 11.0, 'p50_ms': 10.0, 'in_process_ms': 5.0,
                'queries': 4, 'listed': 10, 'failures': failures}
    return {'backend': backend, 'size': size,
            'scenarios': {'name_prefix': scenario}}


def test_failures_miss_the_goal(tool):
    import _record
    run = _record.Run(['servers_list.py'])
    tool.check_goals([_result('sqlite', 10000, []),
                      _result('sqlite', 100000, [_NON_2XX])], run)
    assert run.missed == ['sqlite: every request answered 2xx, no socket '
                          'error']
    run = _record.Run(['servers_list.py'])
    tool.check_goals([_result('sqlite', 10000, []),
                      _result('sqlite', 100000, [])], run)
    assert run.missed == []
