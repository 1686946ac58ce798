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

"""The gabbi suites' loader (nova_mini.tests.fixtures.gabbits): each YAML
file once per database backend, each run on an application and database of
that backend, a backend whose server is unreachable skipped with the reason,
and one pytest-xdist work unit per file and backend.
"""

import os
import re
import subprocess
import sys

import pytest

from nova_mini.db import api as db_api
from nova_mini.tests import conftest
from nova_mini.tests.fixtures import database as db_fixture
from nova_mini.tests.fixtures import gabbits
from nova_mini_deploy import util as deploy_util

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))))
GABBI_MODULE = 'nova_mini/tests/functional/api/test_gabbits.py'
DIALECTS = {'sqlite': 'sqlite', 'postgresql': 'postgresql',
            'mariadb': 'mysql'}


def test_each_fixture_class_runs_on_its_backend(backend):
    fixture = gabbits.fixtures_on(backend, [gabbits.APIFixture]).APIFixture()
    fixture.__enter__()
    try:
        engine = db_api.get_engine()
        assert engine.dialect.name == DIALECTS[backend]
        assert engine is fixture.fixture.database.engine
        assert gabbits._current['app'] is fixture.fixture.app
    finally:
        fixture.__exit__(None, None, None)
    assert gabbits._current['app'] is None
    # The class the YAML files name is left as it was.
    assert gabbits.APIFixture.backend == 'sqlite'


def _gabbi_id(backend, name, module='test_gabbits'):
    return ('nova_mini/tests/functional/api/%s.py::test_pytest['
            'nova_mini.tests.functional.api.%s.%s:%s]'
            % (module, module, backend, name))


def test_a_work_unit_per_yaml_file_and_backend():
    units = {conftest._work_unit(_gabbi_id(backend, name))
             for backend in db_fixture.BACKENDS
             for name in ('flavors-list_create_one', 'flavors-list_list',
                          'nodes_create_one')}
    assert len(units) == 6
    assert conftest._work_unit(_gabbi_id(
        'mariadb', 'flavors-list_a_[bracketed]_name')) == \
        conftest._work_unit(_gabbi_id('mariadb', 'flavors-list_list'))
    assert conftest._work_unit(_gabbi_id(
        'sqlite', 'server-actions_stop', 'test_gabbits_with_scheduler')) != \
        conftest._work_unit(_gabbi_id('sqlite', 'server-actions_stop'))
    # Other tests stay a unit per module.
    for nodeid in ('nova_mini/tests/functional/db/test_flavor.py::test_x',
                   'nova_mini/tests/functional/db/test_flavor.py::test_x['
                   'mariadb]',
                   'nova_mini/tests/functional/db/test_flavor.py::Flavors::'
                   'test_x[a-b]'):
        assert conftest._work_unit(nodeid) == \
            'nova_mini/tests/functional/db/test_flavor.py'


def test_unreachable_server_skips_its_backend_with_the_reason():
    # A MariaDB "server" on a port where none listens: that backend's
    # tests of one YAML file are skipped (not failed, not errors), with
    # the reason; the same file passes on SQLite.
    env = dict(os.environ, NOVA_MINI_TEST_MYSQL_URL=(
        'mysql+pymysql://root@127.0.0.1:%d/' % deploy_util.free_port()))
    result = subprocess.run(
        [sys.executable, '-m', 'pytest', '-p', 'no:cacheprovider', '-q',
         '-p', 'no:warnings', '-rs', GABBI_MODULE, '-k',
         'compute-v2-root and not postgresql'],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    summary = result.stdout.strip().splitlines()[-1]
    counts = re.match(r'(\d+) passed, (\d+) skipped, \d+ deselected in ',
                      summary)
    assert counts, result.stdout
    passed, skipped = int(counts.group(1)), int(counts.group(2))
    assert skipped > 0 and passed == skipped, summary
    assert ('SKIPPED [%d] ' % skipped) in result.stdout
    assert ': No MariaDB server answers at mysql+pymysql://root@127.0.0.1:' \
        in result.stdout


@pytest.fixture
def no_mariadb(monkeypatch):
    monkeypatch.setenv(db_fixture.MYSQL_URL_ENV, 'mysql+pymysql://root@'
                       '127.0.0.1:%d/' % deploy_util.free_port())
    monkeypatch.setattr(db_fixture, '_mysql_url', [])
    gabbits.unavailable.cache_clear()
    yield
    gabbits.unavailable.cache_clear()


def test_unavailable_names_the_server(no_mariadb):
    reason = gabbits.unavailable('mariadb')
    assert reason.startswith('No MariaDB server answers at ')
    assert gabbits.unavailable('sqlite') is None
