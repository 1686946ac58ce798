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

"""pytest hooks and fixtures of the whole suite: unit, in-process
functional (tests/functional: SQLite/PostgreSQL, the whole WSGI app) and live
(tests/live, which adds the ``stack`` of real services). The fixture classes
themselves live in nova_mini.tests.fixtures.

NOTE: test ids must be the same in every process (pytest-xdist's workers
each collect the suite, with hash seeds of their own): no random values,
sets in a fixed order. And they must not contain ':' (gabbi's pytest
plugin fails the whole collection on one): pytest_make_parametrize_id
below replaces it in the ids of parametrized strings; explicit ``ids=``
must avoid it.
"""

from gabbi import pytester
import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.tests.fixtures import api as api_fixture
from nova_mini.tests.fixtures import conf as conf_fixture
# Imported so that pytest finds them in every module of this suite.
from nova_mini.tests.fixtures.database import backend  # noqa: F401
from nova_mini.tests.fixtures.database import database  # noqa: F401
from nova_mini.tests.fixtures.database import db  # noqa: F401
from nova_mini.tests.fixtures.database import empty_database  # noqa: F401
from nova_mini.tests.fixtures.database import engine  # noqa: F401
from nova_mini.tests.fixtures import policy as policy_fixture

objects.register_all()


def _use(fixture):
    fixture.setUp()
    try:
        yield fixture
    finally:
        fixture.cleanUp()


@pytest.fixture
def conf():
    """nova_mini's CONF, parsed from nothing, overrides undone after."""
    yield from _use(conf_fixture.ConfFixture())


@pytest.fixture
def policy_reset():
    """A fresh policy enforcer with the defaults in code."""
    yield from _use(policy_fixture.PolicyFixture())


@pytest.fixture
def api_fixture_factory():
    """Build APIFixtures (each with its own SQLite database) on demand."""
    made = []

    def factory(**kwargs):
        fixture = api_fixture.APIFixture(**kwargs)
        fixture.setUp()
        made.append(fixture)
        return fixture

    yield factory
    for fixture in reversed(made):
        fixture.cleanUp()


@pytest.fixture
def api(api_fixture_factory):
    """webtest's TestApp on nova-mini-api with default policy."""
    return webtest.TestApp(api_fixture_factory().app)


@pytest.fixture
def admin_context():
    return nm_context.RequestContext(user_id='admin', project_id='admin',
                                     roles=['admin', 'member', 'reader'],
                                     is_admin=True)


@pytest.fixture
def demo_context():
    return nm_context.RequestContext(user_id='demo', project_id='demo',
                                     roles=['member', 'reader'],
                                     is_admin=False)


def pytest_make_parametrize_id(config, val, argname):
    """Ids for parametrized strings and bytes, without ':'.

    gabbi's pytest plugin (loaded by the gabbi test loaders) takes every
    test id with a ':' for one of its own tests and fails the whole
    collection; values such as URLs and HTTP dates have them.
    """
    if isinstance(val, str) and ':' in val:
        return val.replace(':', '_')
    if isinstance(val, bytes) and b':' in val:
        return val.replace(b':', b'_').decode('ascii', 'backslashreplace')
    return None


_LIVE = 'nova_mini/tests/live/'
# The live modules that run OpenStack's own suites: work units of their
# own, after the live and in-process tests. ironic-tempest-plugin's run
# (about 7 minutes on CI's 2 cores with Tempest's dynamic credentials,
# about 4 with pre-provisioned ones and the stack's start: still one of
# the longest units of the suite) is a unit of its own and comes first,
# so that the first worker free takes it while the other runs the quick
# start and then the other Tempest modules (compute, versions, nova_mini's
# plugin: about 4 minutes together). As one unit they kept one worker busy
# for 13 minutes at the end of a run, the other idle for half of it.
_TEMPEST = _LIVE + 'test_tempest_'
_TEMPEST_BAREMETAL = _LIVE + 'test_tempest_baremetal.py'
# A live module that needs no stack of the worker's (it deploys its own):
# a unit of its own between the in-process tests and Tempest's, so that
# the worker done with the in-process tests takes it if the other is still
# busy with the live tests (the longer of the two).
_QUICKSTART = _LIVE + 'test_quickstart.py'


def _work_unit(nodeid):
    """The pytest-xdist work unit of a test: ironic-tempest-plugin's
    module, the other Tempest modules, the quick start, the other live
    modules, a gabbi YAML file on one backend, or the test's own module.
    """
    if nodeid.startswith(_TEMPEST_BAREMETAL):
        return _TEMPEST_BAREMETAL
    if nodeid.startswith(_TEMPEST):
        return _TEMPEST
    if nodeid.startswith(_QUICKSTART):
        return _QUICKSTART
    if nodeid.startswith(_LIVE):
        return _LIVE
    module = nodeid.split('::', 1)[0]
    params = nodeid.partition('[')[2]
    if ':' in params:
        # A gabbi test (the only parameters with a ':'): its file's suite,
        # which has its own application and database, named as gabbi's
        # pytest plugin names it to start and stop its fixtures.
        return '%s::%s' % (module, pytester.get_suitename(
            params.split(']', 1)[0]))
    return module


_ORDER = {_LIVE: 0, _TEMPEST_BAREMETAL: 2, _QUICKSTART: 3, _TEMPEST: 4}


def _unit_order(item):
    return _ORDER.get(_work_unit(item.nodeid), 1)


def pytest_collection_modifyitems(config, items):
    """The live tests first, then the in-process ones, ironic-tempest-
    plugin's run, the quick start, and the other Tempest ones last (see
    pytest_xdist_make_scheduler).
    """
    items.sort(key=_unit_order)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Work units for pytest-xdist (tools/run-tests.sh runs ``-n 2 --dist
    loadfile --no-loadscope-reorder``): the live tests but Tempest's are one
    unit, first, run in order by one worker: they share one stack of
    daemons per process, and they load the machine's cores themselves
    (Keystone, the daemons), so that several at once would only slow each
    other down. The other worker takes the in-process tests a module at a
    time, but a gabbi YAML file on one backend at a time (a sequence of
    requests that must stay in one process, on an application and database
    of its own; the gabbi modules are the largest, three backends of about
    1,950 requests, and either worker may take their files). Then, each as
    one unit, whichever worker is free first taking the next:
    ironic-tempest-plugin's run (the longest), the quick start (which
    deploys a stack of its own) and the other Tempest runs.
    """
    from xdist import scheduler

    class Scheduling(scheduler.LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return _work_unit(nodeid)

    return Scheduling(config, log)
