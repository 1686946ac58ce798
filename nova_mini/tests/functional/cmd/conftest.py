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

"""Fixtures of the console script tests."""

import contextlib

from oslo_db.sqlalchemy import enginefacade
import pytest

from nova_mini.db import api as db_api
from nova_mini.tests.functional.cmd import scripts


@contextlib.contextmanager
def synced_database(directory):
    """A database made by ``nova-mini-manage db sync`` in ``directory``,
    a config file naming it (with a metadata shared secret), and the
    in-process enginefacade pointed at it for making rows; yields the
    config file.
    """
    url, config_file = scripts.config(
        directory, 'metadata_proxy_shared_secret = s3cret')
    synced = scripts.run('nova-mini-manage', config_file, 'db', 'sync')
    assert synced.returncode == 0, synced.stderr
    factory = enginefacade.transaction_context()
    factory.configure(connection=url, sqlite_fk=True)
    factory.append_on_engine_create(db_api._on_engine_create)
    restore = db_api.context_manager.patch_factory(factory)
    try:
        yield config_file
    finally:
        restore()
        factory.writer.get_engine().dispose()


@pytest.fixture
def synced(tmp_path):
    """synced_database in the test's own directory."""
    with synced_database(tmp_path) as config_file:
        yield config_file
