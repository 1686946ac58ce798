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

"""How the live Tempest tests judge a run (tests/live/tempest_run.py's
``Result.problems``), on ``tempest run`` output: a run that skips what it
may not, passes too few tests, fails what it should not or stops half
way is a problem, whatever else it did.
"""

import pytest

from nova_mini.tests.live import tempest_run

MOD = 'tempest.api.compute.servers.test_servers'
PASSED = ['{0} %s.ServersTest.test_%d[id-%d,smoke] [0.5%ds] ... ok'
          % (MOD, n, n, n) for n in range(3)]
SKIPPED = ['{1} setUpClass (%s.ServersNetworkTest) ... SKIPPED: Neutron is '
           'not available' % MOD,
           '{1} %s.ServersTest.test_by_ip ... SKIPPED: fixed_network_name '
           'needs to be configured to run this test' % MOD]
FAILED = '{0} %s.ServersTest.test_differs [1.2s] ... FAILED' % MOD
ALLOWED = {'test_servers.ServersNetworkTest': 'Neutron is not available',
           'test_by_ip': 'fixed_network_name needs to be configured'}
DIFFERENCES = {'ServersTest.test_differs': 'by design'}


def _result(lines, returncode):
    return tempest_run.Result(returncode, '\n'.join(lines))


def test_the_expected_run():
    result = _result(PASSED + SKIPPED + [FAILED], 1)
    assert result.problems(3, ALLOWED, DIFFERENCES) == []
    assert _result(PASSED + SKIPPED, 0).problems(3, ALLOWED) == []


@pytest.mark.parametrize('must_pass', [4, 100])
def test_too_few_passed(must_pass):
    assert _result(PASSED + SKIPPED, 0).problems(must_pass, ALLOWED) == [
        '3 tests passed, %d must' % must_pass]


def test_everything_skipped():
    assert _result(SKIPPED, 0).problems(3, ALLOWED) == [
        '0 tests passed, 3 must']


def test_a_skip_not_allowed():
    lines = PASSED + SKIPPED + [
        '{0} %s.ServersTest.test_rebuild ... SKIPPED: no reason' % MOD]
    assert _result(lines, 0).problems(3, ALLOWED) == [
        'skip not allowed: %s.ServersTest.test_rebuild: no reason' % MOD]


def test_an_allowed_name_with_another_reason():
    lines = PASSED + ['{1} setUpClass (%s.ServersNetworkTest) ... SKIPPED: '
                      'Volume service not enabled' % MOD]
    assert _result(lines, 0).problems(3, ALLOWED) == [
        'skip not allowed: setUpClass (%s.ServersNetworkTest): Volume '
        'service not enabled' % MOD]


def test_names_are_whole_components():
    test = '%s.ServersTest.test_by_ip_regex' % MOD
    assert tempest_run.names('test_servers.ServersTest', test)
    assert tempest_run.names('ServersTest.test_by_ip_regex', test)
    assert not tempest_run.names('test_by_ip', test)
    assert not tempest_run.names('Servers', test)
    assert tempest_run.names('ServersNetworkTest',
                             'setUpClass (%s.ServersNetworkTest)' % MOD)


def test_an_unexpected_failure():
    other = FAILED.replace('test_differs', 'test_create')
    result = _result(PASSED + [FAILED, other], 1)
    assert result.problems(3, ALLOWED, DIFFERENCES) == [
        'failed: %s.ServersTest.test_create' % MOD]


def test_an_expected_failure_that_passes():
    lines = PASSED + [FAILED.replace('FAILED', 'ok')]
    assert _result(lines, 0).problems(3, ALLOWED, DIFFERENCES) == [
        'expected to fail (by design), did not: ServersTest.test_differs']


@pytest.mark.parametrize('lines, returncode, status', [
    (PASSED, 1, 0),             # stopped: status 1 without a failed test
    (PASSED, -9, 0),            # killed
    (PASSED + [FAILED], 0, 1),  # a failed test, yet status 0
])
def test_exit_status(lines, returncode, status):
    differences = DIFFERENCES if status else {}
    assert _result(lines, returncode).problems(3, {}, differences) == [
        'tempest run exited %d, not %d' % (returncode, status)]


def test_check_fails_the_test_with_the_problems():
    result = _result(PASSED, 0)
    with pytest.raises(pytest.fail.Exception) as info:
        result.check(4, {})
    assert str(info.value).startswith('3 tests passed, 4 must\n')
    assert 'ok   3  fail   0  skip   0' in str(info.value)
