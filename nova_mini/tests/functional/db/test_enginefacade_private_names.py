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

"""The private names of oslo.db that db/enginefacade_retry.py uses are
there and mean what it expects; when oslo.db changes one, the failure
names it, so that the retry of writers cannot silently stop.
"""

import inspect

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
import pytest

from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.db import enginefacade_retry
from nova_mini.tests.fixtures import database as db_fixture


def _require(condition, name, expectation):
    assert condition, (
        'oslo.db changed oslo_db.sqlalchemy.enginefacade %s: %s is no '
        'longer true. nova_mini/db/enginefacade_retry.py relies on it to '
        'retry every outermost writer; adapt that module (its docstring '
        'lists each private name and why).' % (name, expectation))


def _check_transaction_context_manager():
    name = '_TransactionContextManager'
    cls = getattr(enginefacade, name, None)
    _require(inspect.isclass(cls), name, 'it is a class')
    _require(isinstance(enginefacade.transaction_context(), cls), name,
             'transaction_context() returns an instance of it')
    _require(callable(getattr(cls, '__call__', None))
             and list(inspect.signature(cls.__call__).parameters)
             == ['self', 'fn'], name, 'instances decorate a function: '
             '__call__(self, fn)')
    manager = db_api.context_manager
    for modifier in ('writer', 'reader', 'independent'):
        _require(type(getattr(manager, modifier)) is type(manager), name,
                 'the .%s modifier builds an instance of self.__class__'
                 % modifier)
    _require(type(manager.writer.independent) is type(manager), name,
             '.writer.independent builds an instance of self.__class__')


def _check_writer():
    _require(hasattr(enginefacade, '_WRITER'), '_WRITER', 'it exists')
    _require(enginefacade.writer._mode is enginefacade._WRITER, '_WRITER',
             'enginefacade.writer._mode is _WRITER')
    _require(enginefacade.reader._mode is not enginefacade._WRITER,
             '_WRITER', 'enginefacade.reader._mode is not _WRITER')


def _check_mode():
    manager = db_api.context_manager
    _require(hasattr(manager.writer, '_mode'), '._mode',
             'each transaction context manager has _mode')
    _require(manager.writer._mode is enginefacade._WRITER, '._mode',
             '.writer sets _mode to _WRITER')
    _require(manager.writer.independent._mode is enginefacade._WRITER,
             '._mode', '.writer.independent keeps _mode _WRITER')
    for modifier in ('reader', 'independent'):
        _require(getattr(manager, modifier)._mode is not enginefacade._WRITER,
                 '._mode', '.%s is not a writer' % modifier)


def _check_independent():
    manager = db_api.context_manager
    _require(getattr(manager.writer, '_independent', None) is False,
             '._independent', '.writer has _independent False')
    _require(getattr(manager.writer.independent, '_independent', None)
             is True, '._independent',
             '.writer.independent has _independent True')


_CHECKS = {
    '_TransactionContextManager': _check_transaction_context_manager,
    '_WRITER': _check_writer,
    '_mode': _check_mode,
    '_independent': _check_independent,
}


def test_each_private_name_the_module_lists_is_checked():
    assert set(_CHECKS) == set(enginefacade_retry.PRIVATE_NAMES)


@pytest.mark.parametrize('name', sorted(_CHECKS))
def test_private_name_is_as_expected(name):
    _CHECKS[name]()


def test_public_transaction_ctx_tells_a_transaction(backend):
    context = nm_context.get_admin_context()
    with pytest.raises(db_exc.NoEngineContextEstablished):
        context.transaction_ctx
    assert not enginefacade_retry.in_transaction(context)
    fixture = db_fixture.DatabaseFixture(backend)
    fixture.setUp()
    try:
        with db_api.context_manager.reader.using(context):
            assert enginefacade_retry.in_transaction(context)
    finally:
        fixture.cleanUp()
    assert not enginefacade_retry.in_transaction(context)
